#include "actors/supervisor.hpp"

#include "log.hpp"

#include <caf/all.hpp>

#include <algorithm>
#include <functional>
#include <memory>

namespace ttm::actors {

namespace {

using self_ptr = supervisor_actor::stateful_pointer<supervisor_state>;

void release(self_ptr self, const std::string& id) {
  auto& st = self->state;
  auto i = st.slots.find(id);
  if (i == st.slots.end())
    return;
  auto o = st.owners.find(i->second.owner);
  if (o != st.owners.end() && --o->second.slots == 0)
    st.owners.erase(o);
  st.slots.erase(i);
}

void grant(self_ptr self, const std::string& id, const client_actor& owner) {
  auto& st = self->state;
  auto addr = owner.address();
  st.slots.insert_or_assign(id, slot_entry{addr, false});
  auto& o = st.owners[addr];
  o.handle = owner;
  ++o.slots;
}

/// Asks every owner to expire what is due, frees those slots, then calls
/// `done` once all have answered (or failed to).
void expire_all(self_ptr self, std::function<void()> done) {
  auto& owners = self->state.owners;
  if (owners.empty()) {
    done();
    return;
  }
  struct fan_in {
    std::size_t pending;
    std::function<void()> done;
  };
  auto state = std::make_shared<fan_in>(fan_in{owners.size(), std::move(done)});
  auto finish_one = [state] {
    if (--state->pending == 0)
      state->done();
  };
  for (auto& [addr, o] : owners)
    self->request(o.handle, caf::infinite, expire_atom::value)
      .then(
        [=](const std::vector<std::string>& ids) {
          for (const auto& id : ids)
            release(self, id);
          finish_one();
        },
        [=](caf::error&) { finish_one(); });
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
    if (st.clients.erase(dm.source) == 0)
      return;
    st.counted_clients.erase(dm.source);
    st.idle_expiring.erase(dm.source);
    // Its tracking sessions end with it.
    if (st.owners.erase(dm.source) > 0)
      for (auto i = st.slots.begin(); i != st.slots.end();)
        i = i->second.owner == dm.source ? st.slots.erase(i) : std::next(i);
    TTM_LOG(debug, "supervisor",
            "client ended; " + std::to_string(st.clients.size())
              + " active, " + std::to_string(st.slots.size())
              + " tracking sessions");
  });
  self->delayed_send(self, sweep_every(cfg), sweep_atom::value);
  return {
    [=](admit_atom, const client_actor& client, bool idle_expiry,
        bool counted) -> bool {
      auto& st = self->state;
      if (counted && st.counted_clients.size() >= st.cfg.max_clients) {
        TTM_LOG(warning, "supervisor",
                "refused a client: limit of "
                  + std::to_string(st.cfg.max_clients)
                  + " concurrent MCP sessions reached");
        return false;
      }
      self->monitor(client);
      st.clients.insert(client.address());
      if (counted)
        st.counted_clients.insert(client.address());
      if (idle_expiry)
        st.idle_expiring.emplace(client.address(), client);
      return true;
    },
    [=](count_atom) -> std::uint64_t {
      return self->state.counted_clients.size();
    },
    [=](acquire_atom, const std::string& id,
        const client_actor& owner) -> caf::result<bool> {
      auto& st = self->state;
      // Only for a client actor still alive: a slot granted to one that has
      // ended would never be freed (its down message has come and gone).
      auto alive = [=] {
        return self->state.clients.count(owner.address()) > 0;
      };
      if (!alive())
        return false;
      if (st.slots.size() < st.cfg.max_sessions) {
        grant(self, id, owner);
        return true;
      }
      // Full: expire what is due everywhere, then reclaim the session that
      // ended first, and only then refuse.
      auto promise = self->make_response_promise<bool>();
      expire_all(self, [=]() mutable {
        auto& st = self->state;
        if (!alive()) {
          promise.deliver(false);
          return;
        }
        if (st.slots.size() >= st.cfg.max_sessions)
          reclaim_ended(self);
        if (st.slots.size() >= st.cfg.max_sessions) {
          TTM_LOG(warning, "supervisor",
                  "refused a tracking session: limit of "
                    + std::to_string(st.cfg.max_sessions) + " reached");
          promise.deliver(false);
          return;
        }
        grant(self, id, owner);
        promise.deliver(true);
      });
      return promise;
    },
    [=](release_atom, const std::vector<std::string>& ids) {
      for (const auto& id : ids)
        release(self, id);
    },
    [=](ended_atom, const std::vector<std::string>& ids) {
      auto& st = self->state;
      for (const auto& id : ids)
        if (auto i = st.slots.find(id); i != st.slots.end()) {
          i->second.ended = true;
          st.ended_order.push_back(id);
        }
    },
    [=](sweep_atom) {
      auto& st = self->state;
      // Each client judges its own idleness: only it knows when its last
      // frame started and whether one is still in progress.
      if (st.cfg.mcp_idle_timeout.count() > 0)
        for (auto& [addr, client] : st.idle_expiring)
          self->send(client, idle_atom::value, st.cfg.mcp_idle_timeout);
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
    [=](adopt_atom, const std::vector<std::string>& ids,
        const client_actor& owner) {
      // Sessions recovered from the journal were admitted before the
      // restart: they take their slots back even past the cap (which a
      // smaller --max-tracking-sessions may now put below their number).
      if (self->state.clients.count(owner.address()) == 0)
        return;
      for (const auto& id : ids)
        grant(self, id, owner);
      if (self->state.slots.size() > self->state.cfg.max_sessions)
        TTM_LOG(warning, "supervisor",
                "recovered tracking sessions hold "
                  + std::to_string(self->state.slots.size())
                  + " slots, above the limit of "
                  + std::to_string(self->state.cfg.max_sessions));
    },
  };
}

} // namespace ttm::actors
