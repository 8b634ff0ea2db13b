#include "admin/admin.hpp"

#include "admin/cli.hpp"

namespace ttm::admin {

namespace {

const std::vector<const command*>& commands() {
  static const std::vector<const command*> all = {
    &audit_command(), &check_command(), &backup_command(),
    &export_command(), &import_command()};
  return all;
}

} // namespace

bool is_command(const std::string& word) {
  if (word == "sessions")
    return true;
  for (const auto* c : commands())
    if (word == c->name)
      return true;
  return false;
}

int run(const std::vector<std::string>& in, std::ostream& out,
        std::ostream& err,
        const std::function<const char*(const char*)>& getenv) {
  context ctx{out, err, getenv, std::make_shared<domain::system_clock_source>()};
  if (in.empty())
    return usage_error(ctx, "admin", "no command");
  if (in.front() == "sessions")
    return run_sessions(ctx, {in.begin() + 1, in.end()});
  for (const auto* c : commands()) {
    if (in.front() != c->name)
      continue;
    auto parsed = parse(*c, {in.begin() + 1, in.end()});
    if (auto* e = std::get_if<std::string>(&parsed))
      return usage_error(ctx, c->name, *e);
    auto& a = std::get<args>(parsed);
    if (a.help) {
      out << help_of(*c);
      return 0;
    }
    if (!a.rest.empty() && c != &check_command())
      return usage_error(ctx, c->name, "unexpected '--'");
    return c->run(ctx, a);
  }
  return usage_error(ctx, in.front(), "not an admin command (available: "
                                      "sessions, audit, check, backup,"
                                      " export, import)");
}

} // namespace ttm::admin
