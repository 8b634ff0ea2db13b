#pragma once

// A principal's preferences and focus sessions between the tools' view
// (domain/principal_ops.hpp: instants as wall_time) and the store's
// (storage/principal.hpp: nanoseconds), so that neither layer knows the
// other. The focus session mapping serves history too (journal/history).

#include "domain/principal_ops.hpp"
#include "storage/principal.hpp"

namespace ttm::journal {

storage::principal_op to_store(const domain::principal_op& op);
domain::principal_state from_store(const storage::principal_state& st);

storage::focus_record to_store(const domain::focus_row& f);
domain::focus_row from_store(const storage::focus_record& f);

} // namespace ttm::journal
