-- wrk script: POSTs tools/call time_get_current, spreading the requests over
-- the MCP sessions listed (one id per line) in the file named by SESSIONS.
local ids = {}
for line in io.lines(os.getenv("SESSIONS")) do
  ids[#ids + 1] = line
end
local next_id = 0
local body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":'
  .. '{"name":"time_get_current","arguments":{"timezone":"UTC"}}}'

request = function()
  next_id = next_id % #ids + 1
  return wrk.format("POST", nil, {
    ["Content-Type"] = "application/json",
    ["Accept"] = "application/json, text/event-stream",
    ["MCP-Protocol-Version"] = "2025-11-25",
    ["Mcp-Session-Id"] = ids[next_id],
  }, body)
end

response = function(status)
  if status ~= 200 then
    io.stderr:write("unexpected status " .. status .. "\n")
  end
end
