#include "edge/stdio.hpp"

#include "actors/inline_unit.hpp"
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
#include <mutex>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <sys/uio.h>
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

/// Writes each reply as one line to the protocol fd. Replies that the
/// reader thread produces while other frames of the same read still wait
/// to be answered are held and written together (`hold`/`release`): a
/// client that pipelines requests gets one write(2) per read instead of one
/// per reply, and a reply is never held once no other input waits.
class line_writer final : public actors::reply_sink {
public:
  line_writer(int fd, std::shared_ptr<flow_control> flow,
              std::function<void()> on_closed,
              std::function<void()> on_first_reply)
    : fd_(fd), flow_(std::move(flow)), on_closed_(std::move(on_closed)),
      on_first_reply_(std::move(on_first_reply)) {
  }

  /// Called by the transport's thread (the reader's, or a worker's), and by
  /// the reader for rate-limit refusals: one line at a time.
  void deliver(std::string json) override {
    std::lock_guard<std::mutex> guard{mtx_};
    if (std::this_thread::get_id() == reader_ && holding_ > 1) {
      held_.append(json);
      held_ += '\n';
      // Bounded: a read of many small requests (10,000 tools/list lines)
      // would otherwise hold all their large replies at once, and a client
      // that does not read its replies must stop the reader at the pipe.
      if (held_.size() >= max_held)
        flush_held();
      return;
    }
    if (!held_.empty()) {
      held_.append(json);
      held_ += '\n';
      flush_held();
      return;
    }
    static const char newline = '\n';
    iovec iov[2] = {{json.data(), json.size()},
                    {const_cast<char*>(&newline), 1}};
    write_all(iov, 2);
    first_written();
  }

  void frame_done() override {
    // holding_ is the reader's: only it changes it, here or in hold/release.
    if (std::this_thread::get_id() == reader_ && holding_ > 0) {
      std::lock_guard<std::mutex> guard{mtx_};
      // The last frame of the read still runs: what is held goes out now.
      if (--holding_ <= 1)
        flush_held();
    }
    flow_->release();
  }

  void close() override {
    auto f = std::move(on_closed_);
    on_closed_ = nullptr;
    if (f)
      f();
  }

  /// Names the reader thread: called by it before it sends any frame.
  void set_reader() {
    reader_ = std::this_thread::get_id();
  }

  /// The reader is about to run `frames` (> 1) frames of one read: until
  /// `release`, it holds their replies while more than one is unanswered.
  void hold(std::size_t frames) {
    std::lock_guard<std::mutex> guard{mtx_};
    holding_ = frames;
  }

  /// Writes what `hold` kept (the reader ran everything it could).
  void release() {
    std::lock_guard<std::mutex> guard{mtx_};
    holding_ = 0;
    flush_held();
  }

  void abandon() {
    abandoned_ = true;
  }

private:
  /// Replies held for one write at most (bytes; one reply may exceed it).
  static constexpr std::size_t max_held = 64 * 1024;

  void flush_held() {
    if (held_.empty())
      return;
    iovec iov{held_.data(), held_.size()};
    write_all(&iov, 1);
    held_.clear(); // keeps its capacity for the next read's replies
    first_written();
  }

  /// Under mtx_: on_first_reply, once.
  void first_written() {
    if (!on_first_reply_)
      return;
    auto f = std::move(on_first_reply_);
    on_first_reply_ = nullptr;
    f();
  }

  /// Writes all of `iov`. First without blocking and without a poll(2)
  /// (RWF_NOWAIT: the usual case, a pipe with room, costs one syscall);
  /// when the pipe is full, waits for room with a timeout so that
  /// abandon() can end a write to a client that stopped reading.
  void write_all(iovec* iov, int count) {
    if (broken_ || abandoned_)
      return;
    std::size_t left = 0;
    for (int i = 0; i < count; ++i)
      left += iov[i].iov_len;
    if (nowait_) {
      auto n = ::pwritev2(fd_, iov, count, -1, RWF_NOWAIT);
      if (n >= 0 && static_cast<std::size_t>(n) == left)
        return;
      if (n < 0 && errno != EAGAIN && errno != EINTR) {
        if (errno != EOPNOTSUPP && errno != EINVAL) {
          fail();
          return;
        }
        nowait_ = false; // not a pipe or socket (a tty): poll first
        n = 0;
      }
      if (n < 0)
        n = 0;
      // Partly written (or not at all): the rest waits for room below.
      std::string rest;
      rest.reserve(left - static_cast<std::size_t>(n));
      auto skip = static_cast<std::size_t>(n);
      for (int i = 0; i < count; ++i) {
        auto len = iov[i].iov_len;
        auto from = std::min(skip, len);
        rest.append(static_cast<const char*>(iov[i].iov_base) + from,
                    len - from);
        skip -= from;
      }
      write_slowly(rest.data(), rest.size());
      return;
    }
    std::string all;
    all.reserve(left);
    for (int i = 0; i < count; ++i)
      all.append(static_cast<const char*>(iov[i].iov_base), iov[i].iov_len);
    write_slowly(all.data(), all.size());
  }

  void write_slowly(const char* p, std::size_t left) {
    while (left > 0 && !broken_ && !abandoned_) {
      // At most PIPE_BUF bytes per write(2), as POLLOUT on a pipe
      // guarantees that much room (no blocking write).
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
  std::function<void()> on_first_reply_;
  bool broken_ = false;
  bool nowait_ = true; // pwritev2(RWF_NOWAIT) works on fd_
  std::atomic<bool> abandoned_{false};
  /// Frames of the reader's current read not yet done (> 1: hold replies).
  /// Written by the reader only, under mtx_.
  std::size_t holding_ = 0;
  std::thread::id reader_; // set before any frame is sent
  std::string held_;
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
  /// The reader thread's: it runs the actors its lines wake (`keep`: it
  /// serves the one client, so a busy actor or a heavy call runs here too).
  std::unique_ptr<actors::inline_unit> unit;
  /// Frames sent since the last `run_woken`.
  std::size_t sent = 0;

  /// Hands a message to the transport; the actors it wakes run at the next
  /// `run_woken`, once every line of the chunk read is queued. So a request
  /// and its notifications/cancelled in one write still meet, as they would
  /// on the scheduler's threads.
  template <class... Ts>
  void enqueue(Ts&&... xs) {
    unit->send(transport, std::forward<Ts>(xs)...);
  }

  /// Runs what the lines read woke; the replies of a read of several frames
  /// go out together once only one of them is still running.
  void run_woken() {
    bool several = sent > 1;
    if (several)
      writer->hold(sent);
    sent = 0;
    unit->run_all();
    if (several)
      writer->release();
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
      run_woken();
      if (!flow->acquire(opts.max_in_flight))
        return;
    }
    enqueue(actors::inbound_atom::value, std::string{stdio_route},
            std::move(f), actors::sink_ptr{writer});
    ++sent;
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
        if (nl != std::string_view::npos && buf.empty() && discarding == 0
            && part.size() <= cap) {
          // The whole line is in this chunk: decoded from it, no copy.
          data.remove_prefix(nl + 1);
          on_line(part);
          continue;
        }
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
      run_woken();
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
    run_woken();
  }
};

stdio_edge::stdio_edge(actors::transport_actor transport, stdio_options opts,
                       std::function<void()> on_closed)
  : impl_(std::make_unique<impl>()) {
  impl_->unit = std::make_unique<actors::inline_unit>(
    transport->home_system(), actors::inline_policy::keep);
  impl_->transport = std::move(transport);
  impl_->opts = opts;
  impl_->writer = std::make_shared<line_writer>(
    opts.out_fd, impl_->flow, std::move(on_closed),
    std::move(impl_->opts.on_first_reply));
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
  impl_->reader = std::thread{[this] {
    impl_->writer->set_reader();
    impl_->run();
  }};
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
