#pragma once

// A cheap cross-process "something changed" signal for the MCP sessions
// kept in a SQLite journal (issue 32): 512 counters in a 4 KiB file of the
// data directory, mapped shared by every server on that directory. A
// server that commits a change to an MCP session's record (stored, state
// changed, deleted, expired) bumps the counter of that id's slot after the
// commit and before it answers anyone; a server holding a copy of the
// record reads the slot (one atomic load, no system call, no journal) and
// asks the journal again only when it moved. Readers never wait behind a
// write, and writers never wait for readers.
//
// On PostgreSQL the same counters live in this process only (`in_memory`):
// the node's listener (pg_listener.hpp) bumps a slot for each change
// another node notifies, and says whether it is listening at all: a copy
// read while it was not cannot be trusted (a change then went unheard).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace ttm::storage {

class change_signal {
public:
  static constexpr std::size_t slots = 512;

  /// Maps `path` (created, 4 KiB, if absent); nullptr and `why` set when it
  /// cannot: then every request asks the journal, as without a signal.
  static std::shared_ptr<change_signal> open(const std::string& path,
                                             std::string& why);

  /// Counters of this process only, for PostgreSQL's listener; not
  /// `listening` until it says so.
  static std::shared_ptr<change_signal> in_memory();

  /// The slot of an MCP session id: FNV-1a, the same in every process and
  /// build (std::hash need not be).
  static std::size_t slot_of(const std::string& id);

  /// The slot's count now (acquire: what was committed before the bump
  /// that set it is visible to a read that follows).
  std::uint64_t load(std::size_t slot) const {
    return words_[slot].load(std::memory_order_acquire);
  }
  /// After a commit changing an id of `slot`, before answering.
  void bump(std::size_t slot) {
    words_[slot].fetch_add(1, std::memory_order_acq_rel);
  }

  /// After every change may have gone unheard (a listener reconnected).
  void bump_all() {
    for (std::size_t i = 0; i < slots; ++i)
      bump(i);
  }
  /// Whether every change is heard: always for the file; for a listener's
  /// counters, only while its LISTEN is in place. A reader checks it
  /// before the slot's count, and trusts no copy while it is false.
  bool listening() const {
    return listening_.load(std::memory_order_acquire);
  }
  void set_listening(bool on) {
    listening_.store(on, std::memory_order_release);
  }

  change_signal(const change_signal&) = delete;
  change_signal& operator=(const change_signal&) = delete;
  ~change_signal();

private:
  change_signal(std::atomic<std::uint64_t>* words, bool listening)
    : words_(words), listening_(listening) {
  }
  std::atomic<std::uint64_t>* words_;
  std::atomic<bool> listening_;
};

using change_signal_ptr = std::shared_ptr<change_signal>;

} // namespace ttm::storage
