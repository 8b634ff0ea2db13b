#pragma once

// A principal's preferences and focus sessions between the tools' view
// (domain/principal_ops.hpp) and the store's (storage/principal.hpp): the
// same fields, copied, so that neither layer knows the other.

#include "domain/principal_ops.hpp"
#include "storage/principal.hpp"

namespace ttm::journal {

storage::principal_op to_store(const domain::principal_op& op);
domain::principal_state from_store(const storage::principal_state& st);

} // namespace ttm::journal
