-- One kind of the sweep: GET each path of BENCH_SWEEP_PATHS (written by
-- `calendar-bench manifest`) in turn, as BENCH_CALLER ("anonymous" or "administrator",
-- who sends the manifest's Basic credentials). Run with one connection, so latencies are
-- those of one request at a time.
local common = require("common")
setup = common.setup
done = common.done

local requests
local next_request = 0

function init(args)
  common.init()
  local headers = {}
  if os.getenv("BENCH_CALLER") == "administrator" then
    headers["Authorization"] = common.lines("authorization")[1]
  end
  requests = {}
  for i, path in ipairs(common.lines(os.getenv("BENCH_SWEEP_PATHS"))) do
    requests[i] = wrk.format("GET", path, headers)
  end
end

function request()
  next_request = next_request % #requests + 1
  return requests[next_request]
end
