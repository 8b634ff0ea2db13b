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

  change_signal(const change_signal&) = delete;
  change_signal& operator=(const change_signal&) = delete;
  ~change_signal();

private:
  explicit change_signal(std::atomic<std::uint64_t>* words)
    : words_(words) {
  }
  std::atomic<std::uint64_t>* words_;
};

using change_signal_ptr = std::shared_ptr<change_signal>;

} // namespace ttm::storage
