#pragma once

// A tiny HTTP server on 127.0.0.1 for tests that need a real peer (an
// authorization server's metadata, JWKS, introspection): Boost.Beast,
// one thread, one request per connection. Routes are set and changed by
// the test while it runs; each request is counted by path. Started by the
// constructor, stopped by the destructor.

#ifndef BOOST_BEAST_USE_STD_STRING_VIEW
#define BOOST_BEAST_USE_STD_STRING_VIEW
#endif

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace ttm::test {

class loopback_http {
public:
  struct route {
    int status = 200;
    std::string body;
  };

  loopback_http() {
    namespace net = boost::asio;
    acceptor_.open(net::ip::tcp::v4());
    acceptor_.set_option(net::socket_base::reuse_address{true});
    acceptor_.bind({net::ip::make_address("127.0.0.1"), 0});
    acceptor_.listen();
    port_ = acceptor_.local_endpoint().port();
    accept();
    thread_ = std::thread{[this] { ioc_.run(); }};
  }

  ~loopback_http() {
    ioc_.stop();
    thread_.join();
  }

  std::string url(const std::string& path = "") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

  void set(const std::string& path, int status, std::string body) {
    std::lock_guard<std::mutex> guard{mtx_};
    routes_[path] = {status, std::move(body)};
  }

  int hits(const std::string& path) const {
    std::lock_guard<std::mutex> guard{mtx_};
    auto it = hits_.find(path);
    return it == hits_.end() ? 0 : it->second;
  }

  /// The last request's Authorization header and body on `path`.
  std::string last_authorization(const std::string& path) const {
    std::lock_guard<std::mutex> guard{mtx_};
    auto it = auth_.find(path);
    return it == auth_.end() ? std::string{} : it->second;
  }
  std::string last_body(const std::string& path) const {
    std::lock_guard<std::mutex> guard{mtx_};
    auto it = bodies_.find(path);
    return it == bodies_.end() ? std::string{} : it->second;
  }

private:
  void accept() {
    acceptor_.async_accept([this](boost::system::error_code ec,
                                  boost::asio::ip::tcp::socket socket) {
      if (ec)
        return;
      serve(std::move(socket));
      accept();
    });
  }

  void serve(boost::asio::ip::tcp::socket socket) {
    namespace http = boost::beast::http;
    boost::beast::flat_buffer buffer;
    http::request<http::string_body> req;
    boost::system::error_code ec;
    http::read(socket, buffer, req, ec);
    if (ec)
      return;
    std::string path{req.target()};
    route r{404, "{}"};
    {
      std::lock_guard<std::mutex> guard{mtx_};
      ++hits_[path];
      auth_[path] = std::string{req[http::field::authorization]};
      bodies_[path] = req.body();
      if (auto it = routes_.find(path); it != routes_.end())
        r = it->second;
    }
    http::response<http::string_body> res{static_cast<http::status>(r.status),
                                          11};
    res.set(http::field::content_type, "application/json");
    res.body() = r.body;
    res.keep_alive(false);
    res.prepare_payload();
    http::write(socket, res, ec);
    socket.shutdown(boost::asio::ip::tcp::socket::shutdown_both, ec);
  }

  boost::asio::io_context ioc_;
  boost::asio::ip::tcp::acceptor acceptor_{ioc_};
  std::uint16_t port_ = 0;
  std::thread thread_;
  mutable std::mutex mtx_;
  std::map<std::string, route> routes_;
  std::map<std::string, int> hits_;
  std::map<std::string, std::string> auth_;
  std::map<std::string, std::string> bodies_;
};

} // namespace ttm::test
