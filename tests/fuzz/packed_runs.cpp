// A session's packed runs and their digest as a damaged journal row hands
// them back (storage/runs.hpp): any bytes through the reader, the checks a
// store makes before handing a row on, and the digest's reader. Checked
// beyond "no crash": the check and the decode agree; what reads packs
// again (version 4 when every run ended, else 2) into the same runs; a
// closed packing's digest is what the same runs give, and reads.

#include "fuzz_check.hpp"

#include "storage/runs.hpp"

namespace {

using namespace ttm::storage;

bool same(const stored_run& a, const stored_run& b) {
  return a.task_id == b.task_id && a.start_wall_ns == b.start_wall_ns
         && a.end_wall_ns == b.end_wall_ns && a.duration_ns == b.duration_ns
         && a.status == b.status && a.as_of_wall_ns == b.as_of_wall_ns
         && a.running == b.running;
}

bool same(const std::vector<stored_run>& a, const std::vector<stored_run>& b) {
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!same(a[i], b[i]))
      return false;
  return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  auto in = ttm::fuzz::bytes(data, size);
  (void)packed_epoch(in);
  runs_digest d;
  const bool digest = read_digest(in, d);
  FUZZ_CHECK(digest == digest_reads(in), "digest check and decode differ");
  if (digest) {
    std::uint64_t runs = d.completed + d.skipped + d.failed + d.interrupted;
    FUZZ_CHECK(runs == d.runs && d.ended_ms.size() == d.runs, "digest");
  }
  auto runs = unpack_runs(in);
  FUZZ_CHECK(runs.has_value() == runs_unpack(in), "check and decode differ");
  if (!runs)
    return 0;
  for (const auto& r : *runs)
    FUZZ_CHECK(r.duration_ns >= 0, "a negative active time read");
  auto again = pack_runs(*runs);
  auto back = unpack_runs(again);
  FUZZ_CHECK(back && same(*back, *runs), "packed again, read differently");
  if (is_closed_packing(in)) {
    // The digest depends on the runs alone: the input's and the repacked
    // one's are the same bytes, and read.
    auto a = digest_of_packed(in);
    auto b = digest_of_packed(again);
    FUZZ_CHECK(a == b, "two packings of the same runs, two digests");
    FUZZ_CHECK(!a || read_digest(*a, d), "a digest written does not read");
  }
  return 0;
}
