#include "edge/stdio.hpp"

#include "log.hpp"

#include <caf/all.hpp>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace ttm::edge {

namespace {

/// The one route of a stdio server: a single client on one connection.
constexpr const char* stdio_route = "stdio";

/// Writes each reply as one line to the protocol fd.
class line_writer final : public actors::reply_sink {
public:
  line_writer(int fd, std::function<void()> on_closed)
    : fd_(fd), on_closed_(std::move(on_closed)) {
  }

  void deliver(std::string json) override {
    json += '\n';
    std::lock_guard<std::mutex> guard{mtx_};
    if (broken_)
      return;
    const char* p = json.data();
    std::size_t left = json.size();
    while (left > 0) {
      auto n = ::write(fd_, p, left);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        // The client closed its end: nobody reads replies any more.
        TTM_LOG(warning, "stdio", std::string{"cannot write to stdout: "}
                                    + std::strerror(errno));
        broken_ = true;
        return;
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
  }

  void close() override {
    std::function<void()> f;
    {
      std::lock_guard<std::mutex> guard{mtx_};
      std::swap(f, on_closed_);
    }
    if (f)
      f();
  }

private:
  std::mutex mtx_;
  int fd_;
  bool broken_ = false;
  std::function<void()> on_closed_;
};

} // namespace

struct stdio_edge::impl {
  actors::transport_actor transport;
  stdio_options opts;
  std::shared_ptr<line_writer> writer;
  std::thread reader;
  int wake_pipe[2] = {-1, -1};
  std::atomic<bool> stopping{false};

  void send_line(std::string_view line) {
    // Tolerate CRLF framing and blank lines between messages.
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos)
      return;
    caf::anon_send(transport, actors::inbound_atom::value,
                   std::string{stdio_route}, protocol::decode(line),
                   actors::sink_ptr{writer});
  }

  void send_oversized(std::size_t bytes) {
    TTM_LOG(warning, "stdio", "discarded a line of at least "
                                + std::to_string(bytes) + " bytes (limit "
                                + std::to_string(opts.max_line_bytes) + ")");
    protocol::frame f;
    f.error_code = protocol::invalid_request;
    f.error_message = "Invalid Request: message exceeds the limit of "
                      + std::to_string(opts.max_line_bytes)
                      + " bytes per line (--max-line-bytes); discarded";
    caf::anon_send(transport, actors::inbound_atom::value,
                   std::string{stdio_route}, std::move(f),
                   actors::sink_ptr{writer});
  }

  void run() {
    std::string buf;
    std::size_t discarding = 0; // > 0: inside an oversized line
    char chunk[64 * 1024];
    pollfd fds[2] = {{opts.in_fd, POLLIN, 0}, {wake_pipe[0], POLLIN, 0}};
    for (;;) {
      auto rc = ::poll(fds, 2, -1);
      if (rc < 0 && errno == EINTR)
        continue;
      if (rc < 0 || stopping || (fds[1].revents & POLLIN))
        break; // stop(): no more input, but let in-flight replies finish
      auto n = ::read(opts.in_fd, chunk, sizeof(chunk));
      if (n < 0 && (errno == EINTR || errno == EAGAIN))
        continue;
      if (n <= 0)
        break; // EOF (or a broken stdin): finish what is in flight
      std::string_view data{chunk, static_cast<std::size_t>(n)};
      while (!data.empty()) {
        auto nl = data.find('\n');
        auto part = data.substr(0, nl);
        if (discarding > 0) {
          discarding += part.size();
        } else if (buf.size() + part.size() > opts.max_line_bytes) {
          discarding = buf.size() + part.size();
          buf.clear();
          buf.shrink_to_fit();
        } else {
          buf.append(part);
        }
        if (nl == std::string_view::npos)
          break;
        data.remove_prefix(nl + 1);
        if (discarding > 0) {
          send_oversized(discarding);
          discarding = 0;
        } else {
          send_line(buf);
          buf.clear();
        }
      }
    }
    // At EOF a last line without a trailing newline still counts.
    if (!stopping) {
      if (discarding > 0)
        send_oversized(discarding);
      else if (!buf.empty())
        send_line(buf);
    }
    caf::anon_send(transport, actors::eof_atom::value,
                   std::string{stdio_route}, actors::sink_ptr{writer});
  }
};

stdio_edge::stdio_edge(actors::transport_actor transport, stdio_options opts,
                       std::function<void()> on_closed)
  : impl_(std::make_unique<impl>()) {
  impl_->transport = std::move(transport);
  impl_->opts = opts;
  impl_->writer = std::make_shared<line_writer>(opts.out_fd,
                                                std::move(on_closed));
  if (::pipe2(impl_->wake_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string{"pipe2: "} + std::strerror(errno));
}

stdio_edge::~stdio_edge() {
  stop();
  for (int fd : impl_->wake_pipe)
    if (fd >= 0)
      ::close(fd);
}

void stdio_edge::start() {
  impl_->reader = std::thread{[this] { impl_->run(); }};
}

void stdio_edge::stop() {
  if (!impl_->reader.joinable())
    return;
  impl_->stopping = true;
  char c = 1;
  auto rc = ::write(impl_->wake_pipe[1], &c, 1);
  (void) rc;
  impl_->reader.join();
}

} // namespace ttm::edge
