#include "edge/stdio.hpp"

#include "log.hpp"
#include "mcp/wire.hpp"
#include "protocol/json_rpc.hpp"
#include "protocol/request_ids.hpp"

#include <caf/all.hpp>

#include <atomic>
#include <cerrno>
#include <climits>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace ttm::edge {

namespace {

/// The one route of a stdio server: a single client on one connection.
constexpr const char* stdio_route = "stdio";

/// Counts frames in flight between the reader and the transport. Shared by
/// the reader and the writer, which the transport may keep alive after the
/// edge is gone.
struct flow_control {
  std::mutex mtx;
  std::condition_variable cv;
  std::size_t in_flight = 0;
  bool stopping = false;

  /// Takes a slot if one is free, without blocking.
  bool try_acquire(std::size_t limit) {
    std::lock_guard<std::mutex> guard{mtx};
    if (stopping || in_flight >= limit)
      return false;
    ++in_flight;
    return true;
  }

  /// Blocks until a frame may be sent; false when stopping.
  bool acquire(std::size_t limit) {
    std::unique_lock<std::mutex> guard{mtx};
    cv.wait(guard, [&] { return in_flight < limit || stopping; });
    if (stopping)
      return false;
    ++in_flight;
    return true;
  }

  void release() {
    {
      std::lock_guard<std::mutex> guard{mtx};
      if (in_flight > 0)
        --in_flight;
    }
    cv.notify_all();
  }

  void stop() {
    {
      std::lock_guard<std::mutex> guard{mtx};
      stopping = true;
    }
    cv.notify_all();
  }
};

/// Writes each reply as one line to the protocol fd. Called from the
/// transport actor only.
class line_writer final : public actors::reply_sink {
public:
  line_writer(int fd, std::shared_ptr<flow_control> flow,
              std::function<void()> on_closed)
    : fd_(fd), flow_(std::move(flow)), on_closed_(std::move(on_closed)) {
  }

  void deliver(std::string json) override {
    // The transport writes from its thread; the reader writes rate-limit
    // refusals from its own: one line at a time.
    std::lock_guard<std::mutex> guard{mtx_};
    json += '\n';
    const char* p = json.data();
    std::size_t left = json.size();
    while (left > 0 && !broken_ && !abandoned_) {
      // Wait for room with a timeout so that abandon() can end a write to a
      // client that stopped reading; at most PIPE_BUF bytes per write(2), as
      // POLLOUT on a pipe guarantees that much room (no blocking write).
      pollfd pfd{fd_, POLLOUT, 0};
      auto rc = ::poll(&pfd, 1, 100);
      if (rc < 0 && errno != EINTR)
        fail();
      if (rc <= 0)
        continue;
      auto n = ::write(fd_, p, std::min<std::size_t>(left, PIPE_BUF));
      if (n < 0 && (errno == EINTR || errno == EAGAIN))
        continue;
      if (n <= 0) {
        fail();
        break;
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
  }

  void frame_done() override {
    flow_->release();
  }

  void close() override {
    auto f = std::move(on_closed_);
    on_closed_ = nullptr;
    if (f)
      f();
  }

  void abandon() {
    abandoned_ = true;
  }

private:
  void fail() {
    // The client closed its end: nobody reads replies any more.
    if (!broken_)
      TTM_LOG(warning, "stdio", std::string{"cannot write to stdout: "}
                                  + std::strerror(errno));
    broken_ = true;
  }

  std::mutex mtx_;
  int fd_;
  std::shared_ptr<flow_control> flow_;
  std::function<void()> on_closed_;
  bool broken_ = false;
  std::atomic<bool> abandoned_{false};
};

/// Runs the actors that the reader thread's messages wake on the reader
/// thread itself. A stdio client sends one request and waits for its reply,
/// so every hand-off to a scheduler thread is a wake-up (10-15 us each on a
/// small VM) on the critical path; inline, a call costs none. The actors
/// stay ordinary CAF actors: whoever unblocks an actor's mailbox schedules
/// it, so timers and other threads still run them on the scheduler's
/// workers, and an actor never runs on two threads at once.
class inline_unit final : public caf::execution_unit {
public:
  explicit inline_unit(caf::actor_system& sys) : caf::execution_unit(&sys) {
  }

  /// Called by actors this unit is running, and by the reader's enqueue.
  void exec_later(caf::resumable* job) override {
    jobs_.push_back(job);
  }

  /// Runs every job until all of them wait for messages again.
  void run_all() {
    while (!jobs_.empty()) {
      auto* job = jobs_.front();
      jobs_.pop_front();
      switch (job->resume(this, max_throughput)) {
        case caf::resumable::resume_later:
          jobs_.push_back(job); // keeps its reference
          break;
        case caf::resumable::done:
        case caf::resumable::awaiting_message:
          intrusive_ptr_release(job);
          break;
        case caf::resumable::shutdown_execution_unit:
          break; // only the scheduler's own jobs say so
      }
    }
  }

private:
  /// Messages per actor before the next job gets a turn (CAF's default).
  static constexpr std::size_t max_throughput = 300;

  std::deque<caf::resumable*> jobs_;
};

} // namespace

struct stdio_edge::impl {
  actors::transport_actor transport;
  stdio_options opts;
  std::shared_ptr<flow_control> flow = std::make_shared<flow_control>();
  std::shared_ptr<line_writer> writer;
  std::thread reader;
  int wake_pipe[2] = {-1, -1};
  std::atomic<bool> stopping{false};
  std::unique_ptr<inline_unit> unit; // the reader thread's

  /// Hands a message to the transport; the actors it wakes run at the next
  /// `unit->run_all()`, once every line of the chunk read is queued. So a
  /// request and its notifications/cancelled in one write still meet, as
  /// they would on the scheduler's threads.
  template <class... Ts>
  void enqueue(Ts&&... xs) {
    auto* dest = caf::actor_cast<caf::abstract_actor*>(transport);
    dest->enqueue(caf::make_mailbox_element(nullptr, caf::make_message_id(),
                                            {}, std::forward<Ts>(xs)...),
                  unit.get());
  }

  /// Over --rate-limit: the frame's requests are answered with -32050 and
  /// nothing of it runs. Notifications and responses (never answered)
  /// count nothing.
  bool rate_limited(const protocol::frame& f) {
    if (!opts.limiter || f.error_code != 0)
      return false;
    std::vector<const protocol::message*> requests;
    for (const auto& m : f.messages)
      if (m.kind == protocol::message::request
          || m.kind == protocol::message::invalid)
        requests.push_back(&m);
    if (requests.empty())
      return false;
    auto v = opts.limiter->admit(stdio_route);
    if (v) {
      opts.limiter->release(stdio_route); // reading pauses instead
      return false;
    }
    auto ms = std::to_string(v.retry_after.count());
    std::vector<std::string> replies;
    for (const auto* m : requests)
      replies.push_back(protocol::encode_error(
        m->id, protocol::rate_limited,
        "Too many requests (--rate-limit); retry after " + ms + " ms",
        R"({"retry_after_ms":)" + ms + "}"));
    TTM_LOG(debug, "stdio", "request refused: --rate-limit reached");
    writer->deliver(f.batch ? protocol::encode_batch(replies)
                            : std::move(replies.front()));
    return true;
  }

  void send(protocol::frame f) {
    if (rate_limited(f))
      return;
    if (!flow->try_acquire(opts.max_in_flight)) {
      // The frames holding the slots may be queued right here.
      unit->run_all();
      if (!flow->acquire(opts.max_in_flight))
        return;
    }
    enqueue(actors::inbound_atom::value, std::string{stdio_route},
            std::move(f), actors::sink_ptr{writer});
  }

  /// One complete line, without its '\n'.
  void on_line(std::string_view line) {
    // Tolerate CRLF framing and blank lines between messages.
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    if (line.size() > opts.max_line_bytes) {
      on_oversized(line.size());
      return;
    }
    if (line.find_first_not_of(" \t") == std::string_view::npos)
      return;
    auto f = mcp::decode(line);
    protocol::resolve(f.trace, f, opts.ids);
    send(std::move(f));
  }

  void on_oversized(std::size_t bytes) {
    protocol::frame f;
    protocol::ensure_id(f.trace, opts.ids);
    log::fields about;
    about.request_id = f.trace.request_id;
    TTM_LOG_F(warning, "stdio", "discarded a line of at least "
                                  + std::to_string(bytes) + " bytes (limit "
                                  + std::to_string(opts.max_line_bytes) + ")",
              about);
    f.error_code = protocol::invalid_request;
    f.error_message = "Invalid Request: message exceeds the limit of "
                      + std::to_string(opts.max_line_bytes)
                      + " bytes per line (--max-line-bytes); discarded";
    send(std::move(f));
  }

  void run() {
    // One byte of room beyond the limit for the '\r' of a CRLF line ending.
    const std::size_t cap = opts.max_line_bytes + 1;
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
      while (!data.empty() && !stopping) {
        auto nl = data.find('\n');
        auto part = data.substr(0, nl);
        if (discarding > 0) {
          discarding += part.size();
        } else if (buf.size() + part.size() > cap) {
          // Too long: drop what we have and skip to the next newline
          // without buffering it.
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
          on_oversized(discarding);
          discarding = 0;
        } else {
          on_line(buf);
          buf.clear();
        }
      }
      unit->run_all();
    }
    // At EOF a last line without a trailing newline still counts.
    if (!stopping) {
      if (discarding > 0)
        on_oversized(discarding);
      else if (!buf.empty())
        on_line(buf);
    }
    enqueue(actors::eof_atom::value, std::string{stdio_route},
            actors::sink_ptr{writer});
    unit->run_all();
  }
};

stdio_edge::stdio_edge(actors::transport_actor transport, stdio_options opts,
                       std::function<void()> on_closed)
  : impl_(std::make_unique<impl>()) {
  impl_->unit = std::make_unique<inline_unit>(transport->home_system());
  impl_->transport = std::move(transport);
  impl_->opts = opts;
  impl_->writer = std::make_shared<line_writer>(opts.out_fd, impl_->flow,
                                                std::move(on_closed));
  if (::pipe2(impl_->wake_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string{"pipe2: "} + std::strerror(errno));
}

stdio_edge::~stdio_edge() {
  stop();
  if (impl_->reader.joinable())
    impl_->reader.join();
  for (int fd : impl_->wake_pipe)
    if (fd >= 0)
      ::close(fd);
}

void stdio_edge::start() {
  impl_->reader = std::thread{[this] { impl_->run(); }};
}

void stdio_edge::stop() {
  if (!impl_->reader.joinable() || impl_->stopping.exchange(true))
    return;
  impl_->flow->stop();
  char c = 1;
  auto rc = ::write(impl_->wake_pipe[1], &c, 1);
  (void) rc;
}

void stdio_edge::abandon_output() {
  impl_->writer->abandon();
}

} // namespace ttm::edge
