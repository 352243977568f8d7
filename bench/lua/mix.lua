-- A 90/10 read/write mix, as a busy site might see: of every 100 requests, 40 list
-- upcoming events, 10 list a filtered month (BENCH_FILTER_QUERY), 25 read an event by
-- ID, 15 by slug, and 10 create an event.
local common = require("common")
setup = common.setup
done = common.done

local api = common.api
local filter = os.getenv("BENCH_FILTER_QUERY") or ""
local ids, slugs

function init(args)
  common.init()
  common.prepare_writes()
  ids = common.lines("event_ids")
  slugs = common.lines("event_slugs")
end

function request()
  local r = math.random(100)
  if r <= 40 then
    return wrk.format("GET", api .. "/events")
  elseif r <= 50 then
    return wrk.format("GET", api .. "/events?" .. filter)
  elseif r <= 75 then
    return wrk.format("GET", api .. "/events/" .. common.pick(ids))
  elseif r <= 90 then
    return wrk.format("GET", api .. "/events/by-slug/" .. common.pick(slugs))
  else
    return common.event_request()
  end
end
