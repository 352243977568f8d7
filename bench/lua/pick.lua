-- GET BENCH_PREFIX .. <a random line of BENCH_LIST>: event IDs or slugs sampled from
-- the database by `calendar-bench manifest`, so every request names a real event.
local common = require("common")
setup = common.setup
done = common.done

local prefix = os.getenv("BENCH_PREFIX")
local list_name = os.getenv("BENCH_LIST")
local items

function init(args)
  common.init()
  items = common.lines(list_name)
end

function request()
  return wrk.format("GET", prefix .. common.pick(items))
end
