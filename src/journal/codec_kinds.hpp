#pragma once

// The payload of every event kind, declared once (codec_record.hpp):
// to_event writes these declarations and payload's getters read them back
// (codec.cpp), so a new member is one line here.

#include "domain/refusal.hpp"
#include "domain/tracking.hpp"
#include "journal/codec_record.hpp"

namespace ttm::journal::kinds {

/// The members of a payload of kind `k`, after "by".
const fields::record<domain::change>& payload_of(domain::change::kind_t k);

/// "by": who made the change, first in every payload; written when the
/// origin names a tool. A payload without it, or with one that is not an
/// object, has none (an audit line never makes a session unreadable).
inline constexpr const char* by_key = "by";
const fields::record<domain::change_origin>& by_fields();

/// An audit record of a refusal at the HTTP edge (kind "refusal", in the
/// journal's audit table: it belongs to no session). Its time is the
/// record's, not a member.
inline constexpr const char* refusal_kind = "refusal";
const fields::record<domain::refusal>& refusal_fields();

/// session_started's stamp of the protocol era (era_of reads it).
inline constexpr const char* era_key = "era";

} // namespace ttm::journal::kinds
