#pragma once

// Every atom of the actors, grouped by the actor that receives it (the
// typed interfaces in <receiver>_messages.hpp say which message carries
// which).

#include <caf/atom.hpp>

namespace ttm::actors {

// -- atoms, by receiver -------------------------------------------------------

// client actor
using rpc_atom = caf::atom_constant<caf::atom("rpc")>;
using expire_atom = caf::atom_constant<caf::atom("expire")>;
using evict_atom = caf::atom_constant<caf::atom("evict")>;
using idle_atom = caf::atom_constant<caf::atom("idle")>;
using drop_atom = caf::atom_constant<caf::atom("drop")>;
using fault_atom = caf::atom_constant<caf::atom("fault")>; // also transport
using restore_atom = caf::atom_constant<caf::atom("restore")>;
using resume_atom = caf::atom_constant<caf::atom("resume")>;
using hand_over_atom = caf::atom_constant<caf::atom("handover")>; // also supervisor
// supervisor actor
using admit_atom = caf::atom_constant<caf::atom("admit")>;
using count_atom = caf::atom_constant<caf::atom("count")>;
using acquire_atom = caf::atom_constant<caf::atom("acquire")>;
using release_atom = caf::atom_constant<caf::atom("release")>; // also journal
using ended_atom = caf::atom_constant<caf::atom("ended")>;
using reopened_atom = caf::atom_constant<caf::atom("reopened")>;
using sweep_atom = caf::atom_constant<caf::atom("sweep")>; // also journal
using adopt_atom = caf::atom_constant<caf::atom("adopt")>;
using slots_atom = caf::atom_constant<caf::atom("slots")>;
// transport actor
using inbound_atom = caf::atom_constant<caf::atom("inbound")>;
using eof_atom = caf::atom_constant<caf::atom("eof")>;
using open_atom = caf::atom_constant<caf::atom("open")>;
using forward_atom = caf::atom_constant<caf::atom("forward")>;
using end_atom = caf::atom_constant<caf::atom("end")>;
using call_atom = caf::atom_constant<caf::atom("call")>;
using recovered_atom = caf::atom_constant<caf::atom("recovered")>;
using audit_atom = caf::atom_constant<caf::atom("audit")>; // also journal
// journal actor (also open_atom: open the store)
using append_atom = caf::atom_constant<caf::atom("append")>;
using flush_atom = caf::atom_constant<caf::atom("flush")>;
using purge_atom = caf::atom_constant<caf::atom("purge")>;
using claim_atom = caf::atom_constant<caf::atom("claim")>;
using verify_atom = caf::atom_constant<caf::atom("verify")>;
using history_atom = caf::atom_constant<caf::atom("history")>;
using principal_atom = caf::atom_constant<caf::atom("principal")>;
using lease_atom = caf::atom_constant<caf::atom("lease")>;
using mcp_put_atom = caf::atom_constant<caf::atom("mcpput")>;
using mcp_get_atom = caf::atom_constant<caf::atom("mcpget")>;
using mcp_end_atom = caf::atom_constant<caf::atom("mcpend")>;

} // namespace ttm::actors
