-- The reads of mix.lua alone, in its proportions: of every 90 requests, 40 list
-- upcoming events, 10 list a filtered month (BENCH_FILTER_QUERY), 25 read an event by
-- ID and 15 by slug. What `mix` would serve if nobody wrote: its yardstick.
local common = require("common")
setup = common.setup
done = common.done

local api = common.api
local filter = os.getenv("BENCH_FILTER_QUERY") or ""
local ids, slugs

function init(args)
  common.init()
  ids = common.lines("event_ids")
  slugs = common.lines("event_slugs")
end

function request()
  local r = math.random(90)
  if r <= 40 then
    return wrk.format("GET", api .. "/events")
  elseif r <= 50 then
    return wrk.format("GET", api .. "/events?" .. filter)
  elseif r <= 75 then
    return wrk.format("GET", api .. "/events/" .. common.pick(ids))
  else
    return wrk.format("GET", api .. "/events/by-slug/" .. common.pick(slugs))
  end
end
