// The workflow-edits scenario: Pattern 1 with issue 17's bulk edits mixed
// in. Per task: time_task_start, time_tasks_edit (pause + note),
// time_tasks_edit (resume), time_task_end; then one time_tasks_edit
// correcting every task's run (status and reason: an audit-trail entry
// each); then the summary and the end as in workflow (4K+4 calls).

#include "client.hpp"

namespace ttb {

namespace {

constexpr const char* start_label = "tools/call time_session_start";
constexpr const char* task_start_label = "tools/call time_task_start";
constexpr const char* task_end_label = "tools/call time_task_end";
constexpr const char* pause_label = "tools/call time_tasks_edit pause+note";
constexpr const char* resume_label = "tools/call time_tasks_edit resume";
constexpr const char* correct_label = "tools/call time_tasks_edit correct";

std::string edit_args(const std::string& sid, const std::string& ops) {
  return R"({"session_id":")" + sid + R"(","operations":[)" + ops + "]}";
}

std::string op(const char* name, const std::string& task,
               const char* more = "") {
  return std::string{R"({"op":")"} + name + R"(","task_id":")" + task + "\""
         + more + "}";
}

/// A bulk edit's reply: `n` operations, none refused.
std::string check_ops(const rapidjson::Value& p, std::size_t n) {
  auto it = p.FindMember("operations");
  if (it == p.MemberEnd() || !it->value.IsArray()
      || it->value.Size() != n)
    return "operations is not an array of " + std::to_string(n);
  return {};
}

} // namespace

void vclient::edits_start() {
  auto id = next_id();
  call(start_label,
       request(cfg_.builder.tools_call(id, "time_session_start",
                                       cfg_.start_args)),
       mcp::want::tool_ok,
       [self = shared_from_this()](const rapidjson::Value& p) -> std::string {
         const char* sid = mcp::string_member(p, "session_id");
         if (!sid || !*sid)
           return "no session_id in the result";
         self->sid_ = sid;
         return {};
       },
       [self = shared_from_this()](bool ok, const mcp::document_ptr&,
                                   const incoming&) {
         if (!ok)
           return self->iterate();
         self->iter_name_ = "[workflow-edits]";
         self->iter_start_ = self->intended_;
         self->iter_measured_ = self->measured_;
         self->task_ = 0;
         if (self->cfg_.tasks.empty())
           return self->workflow_close(false);
         self->edits_task(0);
       });
}

void vclient::edits_task(int step) {
  // 0 start, 1 pause + note, 2 resume, 3 end.
  auto id = next_id();
  const auto& task = cfg_.tasks[task_];
  const char* label = step == 0   ? task_start_label
                      : step == 1 ? pause_label
                      : step == 2 ? resume_label
                                  : task_end_label;
  outgoing msg;
  if (step == 0 || step == 3)
    msg = cfg_.builder.tools_call(
      id, step == 0 ? "time_task_start" : "time_task_end",
      mcp::request_builder::task_args(sid_, task));
  else if (step == 1)
    msg = cfg_.builder.tools_call(
      id, "time_tasks_edit",
      edit_args(sid_, op("pause", task) + ","
                        + op("note", task, R"(,"text":"waiting on review")")));
  else
    msg = cfg_.builder.tools_call(id, "time_tasks_edit",
                                  edit_args(sid_, op("resume", task)));
  call(label, request(std::move(msg)), mcp::want::tool_ok,
       [step](const rapidjson::Value& p) -> std::string {
         if (step == 1)
           return check_ops(p, 2);
         if (step == 2)
           return check_ops(p, 1);
         return {};
       },
       [self = shared_from_this(), step](bool ok, const mcp::document_ptr&,
                                         const incoming&) {
         if (!ok)
           return self->iterate();
         if (step < 3)
           return self->edits_task(step + 1);
         if (++self->task_ < self->cfg_.tasks.size())
           return self->edits_task(0);
         self->edits_correct();
       });
}

void vclient::edits_correct() {
  auto id = next_id();
  std::string ops;
  for (const auto& task : cfg_.tasks)
    ops += (ops.empty() ? "" : ",")
           + op("correct", task,
                R"(,"status":"completed","reason":"reviewed: done")");
  auto n = cfg_.tasks.size();
  call(correct_label,
       request(cfg_.builder.tools_call(id, "time_tasks_edit",
                                       edit_args(sid_, ops))),
       mcp::want::tool_ok,
       [n](const rapidjson::Value& p) { return check_ops(p, n); },
       [self = shared_from_this()](bool ok, const mcp::document_ptr&,
                                   const incoming&) {
         if (!ok)
           return self->iterate();
         self->workflow_close(false);
       });
}

} // namespace ttb
