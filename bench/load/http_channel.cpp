// The Streamable HTTP channel: the bench's only Beast code. One keep-alive
// TCP connection, one request at a time.

#define BOOST_BEAST_USE_STD_STRING_VIEW

#include "channel.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <chrono>
#include <optional>

namespace ttb {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

struct http_endpoints {
  tcp::resolver::results_type results;
};

bool parse_url(const std::string& url, http_target& out, std::string& error) {
  const std::string scheme = "http://";
  if (url.rfind(scheme, 0) != 0) {
    error = "the URL must start with http://";
    return false;
  }
  auto rest = url.substr(scheme.size());
  auto slash = rest.find('/');
  auto authority = rest.substr(0, slash);
  out.path = slash == std::string::npos ? "/" : rest.substr(slash);
  out.host_header = authority;
  out.port = "80";
  if (authority.empty()) {
    error = "the URL has no host";
    return false;
  }
  if (authority.front() == '[') {
    auto close = authority.find(']');
    if (close == std::string::npos) {
      error = "unbalanced [ in the URL's host";
      return false;
    }
    out.host = authority.substr(1, close - 1);
    auto after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':' || after.size() == 1) {
        error = "bad port in the URL";
        return false;
      }
      out.port = after.substr(1);
    }
  } else {
    auto colon = authority.rfind(':');
    out.host = authority.substr(0, colon);
    if (colon != std::string::npos)
      out.port = authority.substr(colon + 1);
  }
  if (out.host.empty() || out.port.empty()
      || out.port.find_first_not_of("0123456789") != std::string::npos) {
    error = "bad host or port in the URL";
    return false;
  }
  return true;
}

std::shared_ptr<const http_endpoints> resolve(const http_target& t,
                                              std::string& error) {
  net::io_context ioc;
  tcp::resolver resolver{ioc};
  boost::system::error_code ec;
  auto results = resolver.resolve(t.host, t.port, ec);
  if (ec || results.empty()) {
    error = "cannot resolve " + t.host + ":" + t.port + ": "
            + (ec ? ec.message() : "no address");
    return nullptr;
  }
  auto out = std::make_shared<http_endpoints>();
  out->results = std::move(results);
  return out;
}

namespace {

class http_channel final : public channel,
                           public std::enable_shared_from_this<http_channel> {
public:
  http_channel(net::io_context& ioc, std::shared_ptr<const http_target> t,
               std::shared_ptr<const http_endpoints> e)
    : stream_(ioc), target_(std::move(t)), endpoints_(std::move(e)) {
  }

  bool http() const noexcept override {
    return true;
  }

  void send(outgoing msg, reply_handler done) override {
    done_ = std::move(done);
    req_ = {};
    req_.version(11);
    req_.target(target_->path);
    req_.set(http::field::host, target_->host_header);
    if (msg.verb == outgoing::del) {
      req_.method(http::verb::delete_);
    } else {
      req_.method(http::verb::post);
      req_.set(http::field::content_type, "application/json");
      req_.set(http::field::accept, "application/json, text/event-stream");
      req_.body() = std::move(msg.body);
    }
    if (!msg.session.empty())
      req_.set("Mcp-Session-Id", msg.session);
    for (const auto& [name, value] : msg.headers)
      req_.set(name, value);
    for (const auto& [name, value] : target_->headers)
      req_.set(name, value);
    req_.prepare_payload();
    if (open_)
      write();
    else
      connect();
  }

private:
  void arm() {
    stream_.expires_after(std::chrono::nanoseconds{target_->timeout_ns});
  }

  void connect() {
    arm();
    stream_.async_connect(
      endpoints_->results,
      [self = shared_from_this()](beast::error_code ec,
                                  const tcp::endpoint&) {
        if (ec)
          return self->fail("connect", ec);
        self->open_ = true;
        beast::error_code ignored;
        self->stream_.socket().set_option(tcp::no_delay{true}, ignored);
        self->write();
      });
  }

  void write() {
    arm();
    http::async_write(stream_, req_,
                      [self = shared_from_this()](beast::error_code ec,
                                                  std::size_t) {
                        if (ec)
                          return self->fail("write", ec);
                        self->read();
                      });
  }

  void read() {
    parser_.emplace();
    parser_->body_limit(std::uint64_t{1} << 30);
    parser_->header_limit(1u << 20);
    arm();
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec,
                                                 std::size_t) {
                       self->on_read(ec);
                     });
  }

  void on_read(beast::error_code ec) {
    if (ec)
      return fail("read", ec);
    auto& res = parser_->get();
    incoming in;
    in.status = static_cast<int>(res.result_int());
    if (auto it = res.find("Mcp-Session-Id"); it != res.end())
      in.session = std::string{it->value()};
    if (auto it = res.find(http::field::content_type); it != res.end())
      in.content_type = std::string{it->value()};
    bool keep = res.keep_alive();
    in.body = std::move(res.body());
    parser_.reset();
    if (!keep)
      close();
    deliver(std::move(in));
  }

  void fail(const char* what, beast::error_code ec) {
    close();
    incoming in;
    in.transport_error = std::string{"HTTP "} + what + ": " + ec.message();
    deliver(std::move(in));
  }

  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
    buffer_.clear();
    open_ = false;
  }

  void deliver(incoming in) {
    auto done = std::move(done_);
    done_ = nullptr;
    done(std::move(in));
  }

  beast::tcp_stream stream_;
  std::shared_ptr<const http_target> target_;
  std::shared_ptr<const http_endpoints> endpoints_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> req_;
  std::optional<http::response_parser<http::string_body>> parser_;
  reply_handler done_;
  bool open_ = false;
};

} // namespace

std::shared_ptr<channel>
make_http_channel(net::io_context& ioc, std::shared_ptr<const http_target> t,
                  std::shared_ptr<const http_endpoints> e) {
  return std::make_shared<http_channel>(ioc, std::move(t), std::move(e));
}

} // namespace ttb
