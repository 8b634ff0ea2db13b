#pragma once

#include <cstddef>
#include <string>

namespace ttm::domain {

/// Fills `n` bytes from the kernel's CSPRNG (getrandom(2)). Throws
/// std::system_error when the kernel cannot provide them.
void random_bytes(void* out, std::size_t n);

/// "1b4e28ba-2fa1-4d2f-883f-0016d3cca427": a version 4 (random) UUID from the
/// CSPRNG, lower-case hex. Unguessable, so that an id is no capability leak.
std::string make_uuid_v4();

/// How logs name a session id: its first 8 characters and "...". An id is
/// a bearer capability (whoever holds it may use it, per its owner's
/// rules), so logs never carry one in full; the prefix still lets an
/// operator match log lines with a client's report.
std::string log_id(const std::string& id);

} // namespace ttm::domain
