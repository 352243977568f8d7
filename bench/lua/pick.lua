-- GET BENCH_PREFIX .. <a random line of BENCH_LIST>: event IDs or slugs sampled from
-- the database by `calendar-bench manifest`, so every request names a real event.
-- The requests are formatted once, in init(): formatting one per request in Lua cost
-- wrk about as much CPU as the server spent answering it (bench/HISTORY.md).
-- BENCH_SUFFIX, if set, ends each path (a page's trailing slash).
local common = require("common")
setup = common.setup
done = common.done

local prefix = os.getenv("BENCH_PREFIX")
local suffix = os.getenv("BENCH_SUFFIX") or ""
local list_name = os.getenv("BENCH_LIST")
local requests

function init(args)
  common.init()
  requests = {}
  for i, item in ipairs(common.lines(list_name)) do
    requests[i] = wrk.format("GET", prefix .. item .. suffix)
  end
end

function request()
  return common.pick(requests)
end
