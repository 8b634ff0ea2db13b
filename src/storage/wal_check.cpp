#include "storage/wal_check.hpp"

#include <array>
#include <fstream>
#include <iterator>

namespace ttm::storage {

namespace {

constexpr std::size_t header_size = 32;
constexpr std::size_t frame_header_size = 24;

std::uint32_t be32(std::string_view b, std::size_t at) {
  auto u = [&](std::size_t i) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + i]));
  };
  return u(0) << 24 | u(1) << 16 | u(2) << 8 | u(3);
}

std::uint32_t le32(std::string_view b, std::size_t at) {
  auto u = [&](std::size_t i) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + i]));
  };
  return u(3) << 24 | u(2) << 16 | u(1) << 8 | u(0);
}

/// SQLite's WAL checksum over `bytes` (a multiple of 8), continuing `s`.
/// The words are big-endian if the magic's low bit is set, else
/// little-endian (whatever the machine that wrote it was).
void checksum(std::string_view bytes, bool big_endian,
              std::array<std::uint32_t, 2>& s) {
  for (std::size_t i = 0; i + 8 <= bytes.size(); i += 8) {
    auto x0 = big_endian ? be32(bytes, i) : le32(bytes, i);
    auto x1 = big_endian ? be32(bytes, i + 4) : le32(bytes, i + 4);
    s[0] += x0 + s[1];
    s[1] += x1 + s[0];
  }
}

bool valid_page_size(std::uint32_t page_size) {
  return page_size >= 512 && page_size <= 65536
         && (page_size & (page_size - 1)) == 0;
}

/// Whether the first frame checks out against the header's stored checksum
/// in either byte order: then the header is a WAL's with a damaged magic.
bool first_frame_chains(std::string_view bytes, std::uint32_t page_size) {
  if (bytes.size() < header_size + frame_header_size + page_size)
    return false;
  for (bool big_endian : {false, true}) {
    std::array<std::uint32_t, 2> sum{be32(bytes, 24), be32(bytes, 28)};
    checksum(bytes.substr(header_size, 8), big_endian, sum);
    checksum(bytes.substr(header_size + frame_header_size, page_size),
             big_endian, sum);
    if (sum[0] == be32(bytes, header_size + 16)
        && sum[1] == be32(bytes, header_size + 20))
      return true;
  }
  return false;
}

/// Frames of the generation `salt1`/`salt2` (and commit frames among them).
void count_generation(std::string_view bytes, std::size_t frame_size,
                      std::uint64_t from, std::uint64_t frames,
                      std::uint32_t salt1, std::uint32_t salt2,
                      std::uint64_t& count, std::uint64_t& commits) {
  for (auto i = from; i < frames; ++i) {
    auto at = header_size + i * frame_size;
    if (be32(bytes, at + 8) != salt1 || be32(bytes, at + 12) != salt2)
      continue;
    ++count;
    if (be32(bytes, at + 4) != 0)
      ++commits;
  }
}

} // namespace

wal_scan scan_wal(std::string_view bytes) {
  wal_scan out;
  if (bytes.size() < header_size)
    return out;
  auto magic = be32(bytes, 0);
  auto page_size = be32(bytes, 8);
  if (!valid_page_size(page_size))
    return out;
  if ((magic & 0xFFFFFFFEu) != 0x377f0682u) {
    // SQLite ignores the file: a loss if it is a damaged WAL header.
    if (first_frame_chains(bytes, page_size)) {
      out.damaged_header = true;
      auto frame_size = frame_header_size + page_size;
      count_generation(bytes, frame_size, 0,
                       (bytes.size() - header_size) / frame_size,
                       be32(bytes, header_size + 8),
                       be32(bytes, header_size + 12), out.discarded,
                       out.discarded_commits);
    }
    return out;
  }
  out.has_header = true;
  out.page_size = page_size;
  bool big_endian = (magic & 1u) != 0;
  std::array<std::uint32_t, 2> sum{0, 0};
  checksum(bytes.substr(0, 24), big_endian, sum);
  out.header_ok = sum[0] == be32(bytes, 24) && sum[1] == be32(bytes, 28);
  auto salt1 = be32(bytes, 16);
  auto salt2 = be32(bytes, 20);
  const std::size_t frame_size = frame_header_size + page_size;
  out.frames = (bytes.size() - header_size) / frame_size;

  // The valid chain, as SQLite's recovery walks it (walIndexRecover).
  std::uint64_t valid = 0; // frames in the chain
  if (out.header_ok) {
    for (; valid < out.frames; ++valid) {
      auto at = header_size + valid * frame_size;
      if (be32(bytes, at + 8) != salt1 || be32(bytes, at + 12) != salt2
          || be32(bytes, at) == 0)
        break;
      checksum(bytes.substr(at, 8), big_endian, sum);
      checksum(bytes.substr(at + frame_header_size, page_size), big_endian,
               sum);
      if (sum[0] != be32(bytes, at + 16) || sum[1] != be32(bytes, at + 20))
        break;
      if (be32(bytes, at + 4) != 0) // a commit frame: database size in pages
        out.recovered = valid + 1;
    }
  }
  // A damaged header (a flipped salt fails its checksum too): the frames
  // carry their generation's salts, the first one's.
  if (!out.header_ok && out.frames > 0) {
    out.damaged_header = true;
    salt1 = be32(bytes, header_size + 8);
    salt2 = be32(bytes, header_size + 12);
  }
  for (auto i = valid; i < out.frames; ++i) {
    auto at = header_size + i * frame_size;
    if (bytes.substr(at, frame_header_size)
        == std::string_view{"\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
                            frame_header_size})
      ++out.zeroed;
  }
  // After the chain: frames of this generation (the header's salts) were
  // written and rejected; frames of other salts are an older generation's.
  std::uint64_t rejected = 0;
  std::uint64_t rejected_commits = 0;
  count_generation(bytes, frame_size, valid, out.frames, salt1, salt2,
                   rejected, rejected_commits);
  if (rejected == 0) {
    // The chain ended cleanly: what follows its last commit never committed.
    out.uncommitted = valid - out.recovered;
  } else {
    out.discarded = valid - out.recovered + rejected;
    out.discarded_commits = rejected_commits;
  }
  return out;
}

std::optional<wal_scan> scan_wal_file(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return std::nullopt;
  std::string bytes{std::istreambuf_iterator<char>{in}, {}};
  if (in.bad() || bytes.empty())
    return std::nullopt;
  return scan_wal(bytes);
}

} // namespace ttm::storage
