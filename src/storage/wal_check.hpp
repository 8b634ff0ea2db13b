#pragma once

// What SQLite's WAL recovery will keep of a WAL file, and what it will drop
// silently. Recovery replays the frames of the current generation (the
// header's salts) up to the last commit frame before the first frame whose
// salts or checksum fail; everything after that is ignored without an
// error. Frames with other salts are leftovers of an earlier generation
// (the WAL restarted after a checkpoint): normal, not a loss. Frames with
// the current salts after a damaged one were written and rejected: if one
// of them commits, acknowledged transactions are lost.
// Format: https://www.sqlite.org/fileformat.html#the_write_ahead_log

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ttm::storage {

struct wal_scan {
  /// A WAL header: magic, a page size SQLite accepts. If false, `frames`
  /// is 0 (SQLite ignores such a file), and only a damaged magic sets
  /// anything else (damaged_header, discarded, discarded_commits).
  bool has_header = false;
  /// The header's own checksum holds; if not, SQLite recovers no frame.
  bool header_ok = false;
  std::uint32_t page_size = 0;
  /// Whole frames in the file, of any generation.
  std::uint64_t frames = 0;
  /// Frames SQLite recovers: up to the last valid commit frame.
  std::uint64_t recovered = 0;
  /// Current-generation frames after the first damaged one (checksum or
  /// salt mismatch in the chain): rejected although written.
  std::uint64_t discarded = 0;
  /// Commit frames among `discarded`: transactions that were committed
  /// (and so acknowledged) and are lost.
  std::uint64_t discarded_commits = 0;
  /// Valid current-generation frames after the last commit at the end: a
  /// transaction that never committed (never acknowledged; not a loss).
  std::uint64_t uncommitted = 0;
  /// The header is a WAL's but damaged (its magic, salts or checksum):
  /// SQLite ignores every frame; `discarded` counts those of the generation
  /// the frames carry (the first frame's salts, not the header's).
  bool damaged_header = false;
  /// Frames after the valid chain whose frame header is all zero bytes:
  /// SQLite never writes such a frame; whatever it held was overwritten,
  /// or never reached the disk (a power failure).
  std::uint64_t zeroed = 0;
};

/// Scans the bytes of a WAL file. Pure: no I/O.
wal_scan scan_wal(std::string_view bytes);

/// Reads and scans `path`; nullopt if it does not exist, is empty or cannot
/// be read (then SQLite has nothing to recover either, or fails itself).
std::optional<wal_scan> scan_wal_file(const std::string& path);

} // namespace ttm::storage
