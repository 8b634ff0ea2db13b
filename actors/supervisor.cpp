#include "actors/supervisor.hpp"

#include "log.hpp"
#include "metrics.hpp"

#include <caf/all.hpp>

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace ttm::actors {

namespace {

using self_ptr = supervisor_actor::stateful_pointer<supervisor_state>;

const char* const global_limit = "max_tracking_sessions";
const char* const principal_limit = "max_tracking_sessions_per_principal";
const char* const mcp_session_limit = "max_tracking_sessions_per_mcp_session";

/// The principal of an admitted client actor ("" once it ended).
const std::string& principal_of(self_ptr self, const caf::actor_addr& addr) {
  static const std::string none;
  auto i = self->state.client_info.find(addr);
  return i == self->state.client_info.end() ? none : i->second.principal;
}

/// One more (or one fewer) open session of `o` and of its principal.
void count_open(self_ptr self, const caf::actor_addr& addr, owner_entry& o,
                bool more) {
  auto& by_principal = self->state.open_by_principal;
  const auto& principal = principal_of(self, addr);
  if (more) {
    ++o.open;
    ++by_principal[principal];
    metrics::add_tracking_sessions(1);
    return;
  }
  if (o.open > 0)
    --o.open;
  auto p = by_principal.find(principal);
  if (p == by_principal.end())
    return;
  metrics::add_tracking_sessions(-1);
  if (--p->second == 0)
    by_principal.erase(p);
}

void release(self_ptr self, const std::string& id) {
  auto& st = self->state;
  auto i = st.slots.find(id);
  if (i == st.slots.end())
    return;
  auto o = st.owners.find(i->second.owner);
  if (o != st.owners.end()) {
    if (!i->second.ended)
      count_open(self, o->first, o->second, false);
    if (--o->second.slots == 0)
      st.owners.erase(o);
  }
  st.slots.erase(i);
}

void grant(self_ptr self, const std::string& id, const client_actor& owner) {
  auto& st = self->state;
  release(self, id); // never counted twice
  auto addr = owner.address();
  st.slots.emplace(id, slot_entry{addr, false});
  auto& o = st.owners[addr];
  o.handle = owner;
  ++o.slots;
  count_open(self, addr, o, true);
}

/// Frees `id`'s slot if `owner` still holds it: another client actor of
/// this server may have taken the session over meanwhile (its slot moved).
void release_of(self_ptr self, const std::string& id,
                const caf::actor_addr& owner) {
  auto i = self->state.slots.find(id);
  if (i != self->state.slots.end() && i->second.owner == owner)
    release(self, id);
}

/// Marks a session ended: it no longer counts against its owner's shares
/// (its slot stays until it expires or is reclaimed).
void mark_ended(self_ptr self, const std::string& id) {
  auto& st = self->state;
  auto i = st.slots.find(id);
  if (i == st.slots.end() || i->second.ended)
    return;
  i->second.ended = true;
  st.ended_order.push_back(id);
  auto o = st.owners.find(i->second.owner);
  if (o != st.owners.end())
    count_open(self, o->first, o->second, false);
}

/// Marks an ended session open again (time_undo of its end): it counts
/// against its owner's shares again and is no longer reclaimable (its
/// stale place in `ended_order` is skipped).
void mark_reopened(self_ptr self, const std::string& id) {
  auto& st = self->state;
  auto i = st.slots.find(id);
  if (i == st.slots.end() || !i->second.ended)
    return;
  i->second.ended = false;
  auto o = st.owners.find(i->second.owner);
  if (o != st.owners.end())
    count_open(self, o->first, o->second, true);
}

/// The limit a new tracking session of `owner` would exceed, if any: its
/// MCP session's share, its principal's share (open sessions only), then
/// the global cap (every slot). A share as large as the cap is no share:
/// the cap (with its reclaiming of ended sessions) is what binds then.
/// `id` reopened (time_undo of an end that still holds its slot) needs no
/// new slot: the cap counts the open sessions then, as a reopened one
/// cannot be reclaimed.
std::optional<domain::slot_answer> refusal(self_ptr self,
                                           const caf::actor_addr& owner,
                                           const std::string& id) {
  auto& st = self->state;
  auto info = st.client_info.find(owner);
  if (info == st.client_info.end())
    return domain::slot_answer{global_limit, st.cfg.max_sessions};
  auto slot = st.slots.find(id);
  bool reopening = slot != st.slots.end();
  // Counted already (a retry of the same call after a fenced write).
  if (reopening && !slot->second.ended && slot->second.owner == owner)
    return std::nullopt;
  auto cap = st.cfg.max_sessions;
  if (info->second.mcp_session && st.cfg.max_sessions_per_mcp_session < cap) {
    auto share = st.cfg.max_sessions_per_mcp_session;
    auto o = st.owners.find(owner);
    if (o != st.owners.end() && o->second.open >= share)
      return domain::slot_answer{mcp_session_limit, share};
  }
  if (st.cfg.max_sessions_per_principal < cap) {
    auto share = st.cfg.max_sessions_per_principal;
    auto p = st.open_by_principal.find(info->second.principal);
    if (p != st.open_by_principal.end() && p->second >= share)
      return domain::slot_answer{principal_limit, share};
  }
  if (reopening) {
    std::size_t open = 0;
    for (const auto& [principal, n] : st.open_by_principal)
      open += n;
    if (open >= st.cfg.max_sessions)
      return domain::slot_answer{global_limit, st.cfg.max_sessions};
    return std::nullopt;
  }
  if (st.slots.size() >= st.cfg.max_sessions)
    return domain::slot_answer{global_limit, st.cfg.max_sessions};
  return std::nullopt;
}

/// Whether `id` holds a slot already: a request for it reopens it.
bool holds_slot(self_ptr self, const std::string& id) {
  return self->state.slots.count(id) > 0;
}

/// The owners whose expiry may lift `limit` for `owner`: itself for its
/// MCP session's share, its principal's for that share, all for the cap.
/// Asking only those keeps a client that keeps hitting its share from
/// making every other client work.
std::vector<client_actor> owners_for(self_ptr self,
                                     const caf::actor_addr& owner,
                                     const std::string& limit) {
  auto& st = self->state;
  std::vector<client_actor> out;
  const auto& principal = principal_of(self, owner);
  for (auto& [addr, o] : st.owners)
    if (limit == global_limit || addr == owner
        || (limit == principal_limit && principal_of(self, addr) == principal))
      out.push_back(o.handle);
  return out;
}

/// Asks `targets` to expire what is due, frees those slots, then calls
/// `done` once all have answered (or failed to).
void expire_owners(self_ptr self, std::vector<client_actor> targets,
                   std::function<void()> done) {
  if (targets.empty()) {
    done();
    return;
  }
  struct fan_in {
    std::size_t pending;
    std::function<void()> done;
  };
  auto state
    = std::make_shared<fan_in>(fan_in{targets.size(), std::move(done)});
  auto finish_one = [state] {
    if (--state->pending == 0)
      state->done();
  };
  for (auto& handle : targets)
    self->request(handle, caf::infinite, expire_atom::value)
      .then(
        [=](const std::vector<std::string>& ids) {
          for (const auto& id : ids)
            release_of(self, id, handle.address());
          finish_one();
        },
        [=](caf::error&) { finish_one(); });
}

/// Asks every owner to expire what is due (see `expire_owners`).
void expire_all(self_ptr self, std::function<void()> done) {
  std::vector<client_actor> all;
  for (auto& [addr, o] : self->state.owners)
    all.push_back(o.handle);
  expire_owners(self, std::move(all), std::move(done));
}

/// Drops the session that ended first (its summary was delivered when it
/// ended), telling its owner. Returns false when no session has ended.
bool reclaim_ended(self_ptr self) {
  auto& st = self->state;
  while (!st.ended_order.empty()) {
    auto id = std::move(st.ended_order.front());
    st.ended_order.pop_front();
    auto i = st.slots.find(id);
    if (i == st.slots.end() || !i->second.ended)
      continue;
    auto o = st.owners.find(i->second.owner);
    if (o != st.owners.end())
      self->send(o->second.handle, evict_atom::value, id);
    release(self, id);
    return true;
  }
  return false;
}

/// How often to sweep: `sweep_interval`, or more often for the MCP-session
/// idle timeout.
caf::timespan sweep_every(const supervisor_config& cfg) {
  if (cfg.mcp_idle_timeout.count() <= 0)
    return cfg.sweep_interval;
  // A session ends at most a quarter of the timeout late; short timeouts
  // must not make the actor spin.
  caf::timespan quarter = std::clamp<caf::timespan>(
    cfg.mcp_idle_timeout / 4, std::chrono::milliseconds{100},
    std::chrono::minutes{1});
  return std::min(cfg.sweep_interval, quarter);
}

} // namespace

supervisor_actor::behavior_type
supervisor_behavior(supervisor_actor::stateful_pointer<supervisor_state> self,
                    supervisor_config cfg) {
  self->set_default_handler(caf::drop);
  self->state.cfg = cfg;
  self->set_down_handler([=](const caf::down_msg& dm) {
    auto& st = self->state;
    auto info = st.client_info.find(dm.source);
    if (info == st.client_info.end())
      return;
    if (info->second.counted) {
      --st.counted;
      metrics::add_mcp_sessions(-1);
      if (st.cfg.clock)
        metrics::observe_session(
          st.cfg.network_transport,
          std::chrono::duration<double>(st.cfg.clock->mono_now()
                                        - info->second.since)
            .count());
    }
    // Its tracking sessions end with it.
    if (st.owners.count(dm.source) > 0) {
      std::vector<std::string> ids;
      for (const auto& [id, slot] : st.slots)
        if (slot.owner == dm.source)
          ids.push_back(id);
      for (const auto& id : ids)
        release(self, id);
      st.owners.erase(dm.source);
    }
    st.client_info.erase(dm.source);
    TTM_LOG(debug, "supervisor",
            "client ended; " + std::to_string(st.client_info.size())
              + " active, " + std::to_string(st.slots.size())
              + " tracking sessions");
  });
  self->delayed_send(self, sweep_every(cfg), sweep_atom::value);
  return {
    [=](admit_atom, const client_actor& client, bool idle_expiry,
        bool counted, const std::string& principal) -> bool {
      auto& st = self->state;
      if (counted && st.counted >= st.cfg.max_clients) {
        TTM_LOG(warning, "supervisor",
                "refused a client: limit of "
                  + std::to_string(st.cfg.max_clients)
                  + " concurrent MCP sessions reached");
        return false;
      }
      self->monitor(client);
      auto& e = st.client_info[client.address()];
      if (counted && !e.counted) {
        e.counted = true;
        ++st.counted;
        metrics::add_mcp_sessions(1);
      }
      e.principal = principal;
      e.mcp_session = counted;
      e.since = st.cfg.clock ? st.cfg.clock->mono_now() : domain::mono_time{};
      if (idle_expiry)
        e.idle_expiring = client;
      return true;
    },
    [=](count_atom) -> std::uint64_t {
      return self->state.counted;
    },
    [=](acquire_atom, const std::string& id,
        const client_actor& owner) -> caf::result<domain::slot_answer> {
      // Only for a client actor still alive: a slot granted to one that has
      // ended would never be freed (its down message has come and gone).
      auto alive = [=] {
        return self->state.client_info.count(owner.address()) > 0;
      };
      if (!alive())
        return domain::slot_answer{false};
      auto first = refusal(self, owner.address(), id);
      if (!first) {
        grant(self, id, owner);
        return domain::slot_answer{true};
      }
      // A limit is hit: expire what is due among the owners that count
      // for it; at the global cap, then reclaim the session that ended
      // first (ended ones do not count against a share); only then refuse.
      auto promise = self->make_response_promise<domain::slot_answer>();
      auto targets = owners_for(self, owner.address(), first->limit);
      expire_owners(self, std::move(targets), [=]() mutable {
        if (!alive()) {
          promise.deliver(domain::slot_answer{false});
          return;
        }
        auto why = refusal(self, owner.address(), id);
        // Reclaiming makes no room for a reopened session (it holds its
        // slot; open ones count), and could reclaim that very one.
        if (why && why->limit == global_limit && !holds_slot(self, id)
            && reclaim_ended(self))
          why = refusal(self, owner.address(), id);
        if (why) {
          TTM_LOG(warning, "supervisor",
                  "refused a tracking session of principal '"
                    + principal_of(self, owner.address()) + "': limit "
                    + why->limit + " (" + std::to_string(why->value)
                    + ") reached");
          promise.deliver(*why);
          return;
        }
        grant(self, id, owner);
        promise.deliver(domain::slot_answer{true});
      });
      return promise;
    },
    [=](release_atom, const std::vector<std::string>& ids) {
      auto sender = caf::actor_cast<caf::actor_addr>(self->current_sender());
      for (const auto& id : ids)
        release_of(self, id, sender);
    },
    [=](ended_atom, const std::vector<std::string>& ids) {
      for (const auto& id : ids)
        mark_ended(self, id);
      // Ended sessions taken over past the cap give their slots back.
      while (self->state.slots.size() > self->state.cfg.max_sessions
             && reclaim_ended(self))
        ;
    },
    [=](reopened_atom, const std::vector<std::string>& ids) {
      for (const auto& id : ids)
        mark_reopened(self, id);
    },
    [=](sweep_atom) {
      auto& st = self->state;
      // Each client judges its own idleness: only it knows when its last
      // frame started and whether one is still in progress.
      if (st.cfg.mcp_idle_timeout.count() > 0)
        for (auto& [addr, e] : st.client_info)
          if (e.idle_expiring)
            self->send(e.idle_expiring, idle_atom::value,
                       st.cfg.mcp_idle_timeout);
      expire_all(self, [=] {
        // Forget ended ids whose slots are gone (expired, released).
        auto& st = self->state;
        std::deque<std::string> live;
        for (auto& id : st.ended_order)
          if (st.slots.count(id) > 0)
            live.push_back(std::move(id));
        st.ended_order = std::move(live);
      });
      self->delayed_send(self, sweep_every(self->state.cfg),
                         sweep_atom::value);
    },
    [=](slots_atom) -> std::uint64_t { return self->state.slots.size(); },
    [=](hand_over_atom, const std::string& id, const std::string& principal,
        const std::string& scope) -> caf::result<mcp::handed_session> {
      // To the client actor holding the slot, if another of the asker's
      // principal (the holder checks the principal and era again).
      auto& st = self->state;
      auto asker = caf::actor_cast<caf::actor_addr>(self->current_sender());
      auto slot = st.slots.find(id);
      if (slot == st.slots.end() || slot->second.owner == asker)
        return mcp::handed_session{};
      auto holder = st.owners.find(slot->second.owner);
      auto a = st.client_info.find(asker);
      auto h = st.client_info.find(slot->second.owner);
      if (holder == st.owners.end() || a == st.client_info.end()
          || h == st.client_info.end()
          || a->second.principal != h->second.principal)
        return mcp::handed_session{};
      return self->delegate(holder->second.handle, hand_over_atom::value, id,
                            principal, scope);
    },
    [=](adopt_atom, const std::vector<std::string>& ids,
        const client_actor& owner) {
      // Sessions taken over from the journal were admitted when they
      // started: they take their slots even past the cap (the directory's
      // count of open sessions is what the cap promises). Another client
      // actor here that held one lets go of its copy.
      auto& st = self->state;
      if (st.client_info.count(owner.address()) == 0)
        return;
      for (const auto& id : ids) {
        if (auto i = st.slots.find(id);
            i != st.slots.end() && i->second.owner != owner.address())
          if (auto o = st.owners.find(i->second.owner); o != st.owners.end())
            self->send(o->second.handle, drop_atom::value, id);
        grant(self, id, owner);
      }
      // Over the cap, ended sessions make room first (history a report or
      // a summary loaded: the tracker reports those as ended right after).
      while (st.slots.size() > st.cfg.max_sessions && reclaim_ended(self))
        ;
      if (self->state.slots.size() > self->state.cfg.max_sessions)
        TTM_LOG(warning, "supervisor",
                "tracking sessions taken over from the journal hold "
                  + std::to_string(self->state.slots.size())
                  + " slots, above the limit of "
                  + std::to_string(self->state.cfg.max_sessions));
    },
  };
}

} // namespace ttm::actors
