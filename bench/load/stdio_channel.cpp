// The stdio channel: spawns the server with posix_spawn and speaks
// newline-delimited JSON-RPC over its stdin and stdout. Many virtual clients
// may share one server (and its one MCP session): replies are routed by
// JSON-RPC id.

#include "channel.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <unordered_map>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace ttb {

namespace net = boost::asio;
using error_code = boost::system::error_code;

namespace {

std::string describe_status(int status) {
  if (WIFEXITED(status))
    return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return std::string{"killed by signal "} + strsignal(WTERMSIG(status));
  return "ended with wait status " + std::to_string(status);
}

int open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
#else
  (void) pid;
  errno = ENOSYS;
  return -1;
#endif
}

class stdio_server final : public process_channel,
                           public std::enable_shared_from_this<stdio_server> {
public:
  stdio_server(net::io_context& ioc, pid_t pid, int to_child, int from_child,
               std::int64_t timeout_ns)
    : ioc_(ioc),
      in_(ioc, to_child),
      out_(ioc, from_child),
      timer_(ioc),
      pid_(pid),
      timeout_ns_(timeout_ns) {
    rbuf_.resize(64 * 1024);
  }

  ~stdio_server() override {
    if (!reaped_) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
  }

  void start() {
    read();
  }

  bool http() const noexcept override {
    return false;
  }

  int pid() const noexcept override {
    return pid_;
  }

  void send(outgoing msg, reply_handler done) override {
    if (!dead_.empty() || stdin_closed_) {
      incoming in;
      in.transport_error = dead_.empty() ? "stdin already closed" : dead_;
      net::post(ioc_, [done = std::move(done), in = std::move(in)]() mutable {
        done(std::move(in));
      });
      return;
    }
    if (msg.verb == outgoing::del) {
      // No DELETE over stdio: the session ends with the process.
      net::post(ioc_, [done = std::move(done)] { done(incoming{}); });
      return;
    }
    queued_ += msg.body;
    queued_ += '\n';
    if (msg.notification)
      net::post(ioc_, [done = std::move(done)] { done(incoming{}); });
    else
      pending_[msg.id] = {std::move(done), clock::now()};
    write();
    if (!watchdog_armed_)
      arm_watchdog();
  }

  void finish(std::function<void(std::string)> done) override {
    finish_done_ = std::move(done);
    finishing_ = true;
    if (!writing_)
      close_stdin();
    // A server that ignores the end of its input gets SIGTERM, then SIGKILL.
    std::weak_ptr<stdio_server> weak = shared_from_this();
    timer_.expires_after(std::chrono::seconds{5});
    timer_.async_wait([weak](error_code ec) {
      auto self = weak.lock();
      if (ec || !self || self->reaped_)
        return;
      self->signalled_ = SIGTERM;
      ::kill(self->pid_, SIGTERM);
      self->timer_.expires_after(std::chrono::seconds{2});
      self->timer_.async_wait([weak](error_code ec2) {
        auto self2 = weak.lock();
        if (ec2 || !self2 || self2->reaped_)
          return;
        self2->signalled_ = SIGKILL;
        ::kill(self2->pid_, SIGKILL);
      });
    });
    watch_exit();
  }

private:
  using clock = std::chrono::steady_clock;

  struct waiting {
    reply_handler done;
    clock::time_point sent;
  };

  /// Fails requests unanswered for longer than the timeout.
  void arm_watchdog() {
    watchdog_armed_ = true;
    watchdog_.expires_after(std::chrono::milliseconds{100});
    std::weak_ptr<stdio_server> weak = shared_from_this();
    watchdog_.async_wait([weak](error_code ec) {
      auto self = weak.lock();
      if (!self)
        return;
      self->watchdog_armed_ = false;
      if (ec || !self->dead_.empty())
        return;
      auto limit = clock::now() - std::chrono::nanoseconds{self->timeout_ns_};
      std::vector<std::int64_t> late;
      for (const auto& [id, w] : self->pending_)
        if (w.sent < limit)
          late.push_back(id);
      for (auto id : late) {
        auto it = self->pending_.find(id);
        auto done = std::move(it->second.done);
        self->pending_.erase(it);
        incoming in;
        in.transport_error = "no reply within the timeout";
        done(std::move(in));
      }
      if (!self->pending_.empty())
        self->arm_watchdog();
    });
  }

  void write() {
    if (writing_ || queued_.empty() || stdin_closed_)
      return;
    writing_buf_.swap(queued_);
    queued_.clear();
    writing_ = true;
    net::async_write(in_, net::buffer(writing_buf_),
                     [self = shared_from_this()](error_code ec, std::size_t) {
                       self->writing_ = false;
                       self->writing_buf_.clear();
                       if (ec) {
                         self->fail("writing to the server's stdin: "
                                    + ec.message());
                         return;
                       }
                       if (!self->queued_.empty())
                         self->write();
                       else if (self->finishing_)
                         self->close_stdin();
                     });
  }

  void close_stdin() {
    if (stdin_closed_)
      return;
    stdin_closed_ = true;
    error_code ignored;
    in_.close(ignored);
  }

  void read() {
    out_.async_read_some(
      net::buffer(rbuf_),
      [self = shared_from_this()](error_code ec, std::size_t n) {
        if (ec) {
          self->fail(ec == net::error::eof
                       ? "the server closed its stdout"
                       : "reading the server's stdout: " + ec.message());
          return;
        }
        self->consume(n);
        self->read();
      });
  }

  void consume(std::size_t n) {
    partial_.append(rbuf_.data(), n);
    std::size_t start = 0;
    for (;;) {
      auto nl = partial_.find('\n', start);
      if (nl == std::string::npos)
        break;
      std::size_t end = nl;
      if (end > start && partial_[end - 1] == '\r')
        --end;
      if (end > start)
        line(partial_.data() + start, end - start);
      start = nl + 1;
    }
    partial_.erase(0, start);
  }

  void line(const char* data, std::size_t size) {
    auto doc = std::make_shared<rapidjson::Document>();
    doc->Parse(data, size);
    if (doc->HasParseError() || !doc->IsObject())
      return stray(data, size);
    auto id = doc->FindMember("id");
    if (doc->HasMember("method")) {
      // A notification or a request from the server: none is expected by
      // a client that declared no capabilities; ignored.
      return;
    }
    if (id == doc->MemberEnd() || !id->value.IsInt64())
      return stray(data, size);
    auto it = pending_.find(id->value.GetInt64());
    if (it == pending_.end())
      return stray(data, size);
    auto done = std::move(it->second.done);
    pending_.erase(it);
    incoming in;
    in.doc = std::move(doc);
    done(std::move(in));
  }

  void stray(const char* data, std::size_t size) {
    // A line no request waits for: deliver it as an error to one waiting
    // request, so that the run counts it.
    std::string text{data, std::min<std::size_t>(size, 200)};
    if (pending_.empty())
      return;
    auto it = pending_.begin();
    auto done = std::move(it->second.done);
    pending_.erase(it);
    incoming in;
    in.transport_error = "a stdout line that answers no pending request: "
                         + text;
    done(std::move(in));
  }

  void fail(const std::string& why) {
    if (dead_.empty())
      dead_ = why;
    auto pending = std::move(pending_);
    pending_.clear();
    for (auto& [id, w] : pending) {
      incoming in;
      in.transport_error = why;
      w.done(std::move(in));
    }
  }

  void watch_exit() {
    if (pidfd_ < 0)
      pidfd_ = open_pidfd(pid_);
    if (pidfd_ >= 0) {
      if (!pidfd_desc_)
        pidfd_desc_.emplace(ioc_, pidfd_);
      pidfd_desc_->async_wait(
        net::posix::stream_descriptor::wait_read,
        [self = shared_from_this()](error_code ec) {
          if (ec != net::error::operation_aborted)
            self->try_reap(true);
        });
      return;
    }
    // No pidfd (kernel before 5.3): poll every millisecond.
    poll_timer_.emplace(ioc_);
    poll_timer_->expires_after(std::chrono::milliseconds{1});
    std::weak_ptr<stdio_server> weak = shared_from_this();
    poll_timer_->async_wait([weak](error_code ec) {
      if (auto self = weak.lock(); self && !ec)
        self->try_reap(false);
    });
  }

  void try_reap(bool from_pidfd) {
    int status = 0;
    pid_t r = ::waitpid(pid_, &status, from_pidfd ? 0 : WNOHANG);
    if (r == 0) {
      watch_exit();
      return;
    }
    reaped_ = true;
    timer_.cancel();
    if (pidfd_desc_) {
      error_code ignored;
      pidfd_desc_->close(ignored);
    }
    std::string outcome;
    if (r < 0)
      outcome = std::string{"waitpid: "} + std::strerror(errno);
    else if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)
             && !(signalled_ != 0 && WIFSIGNALED(status)
                  && WTERMSIG(status) == signalled_))
      outcome = "the server " + describe_status(status);
    fail("the server exited");
    if (auto done = std::move(finish_done_))
      done(outcome);
  }

  net::io_context& ioc_;
  net::posix::stream_descriptor in_;
  net::posix::stream_descriptor out_;
  net::steady_timer timer_;
  std::optional<net::steady_timer> poll_timer_;
  std::optional<net::posix::stream_descriptor> pidfd_desc_;
  int pidfd_ = -1;
  pid_t pid_;
  std::int64_t timeout_ns_;
  std::string queued_;
  std::string writing_buf_;
  bool writing_ = false;
  bool stdin_closed_ = false;
  bool finishing_ = false;
  bool reaped_ = false;
  int signalled_ = 0;
  std::string dead_;
  std::vector<char> rbuf_;
  std::string partial_;
  std::unordered_map<std::int64_t, waiting> pending_;
  net::steady_timer watchdog_{ioc_};
  bool watchdog_armed_ = false;
  std::function<void(std::string)> finish_done_;
};

} // namespace

std::shared_ptr<process_channel>
spawn_stdio_server(net::io_context& ioc, const spawn_options& opts,
                   std::string& error) {
  int to_child[2];
  int from_child[2];
  if (::pipe2(to_child, O_CLOEXEC) != 0) {
    error = std::string{"pipe: "} + std::strerror(errno);
    return nullptr;
  }
  if (::pipe2(from_child, O_CLOEXEC) != 0) {
    error = std::string{"pipe: "} + std::strerror(errno);
    ::close(to_child[0]);
    ::close(to_child[1]);
    return nullptr;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, to_child[0], 0);
  posix_spawn_file_actions_adddup2(&fa, from_child[1], 1);
  if (opts.server_log.empty())
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  else if (opts.server_log != "-")
    posix_spawn_file_actions_addopen(&fa, 2, opts.server_log.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
  // The bench ignores SIGPIPE; the server gets the default back.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> argv;
  for (const auto& a : opts.command)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, argv[0], &fa, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  ::close(to_child[0]);
  ::close(from_child[1]);
  if (rc != 0) {
    error = "cannot start '" + opts.command[0] + "': " + std::strerror(rc);
    ::close(to_child[1]);
    ::close(from_child[0]);
    return nullptr;
  }
  auto server = std::make_shared<stdio_server>(ioc, pid, to_child[1],
                                               from_child[0], opts.timeout_ns);
  server->start();
  return server;
}

} // namespace ttb
