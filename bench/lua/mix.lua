-- A 90/10 read/write mix, as a busy site might see: of every 100 requests, 90 reads
-- (common.mix_read: 40 upcoming events, 10 a filtered month, 25 by ID, 15 by slug) and
-- 10 creates of an event.
local common = require("common")
setup = common.setup
done = common.done

function init(args)
  common.init()
  common.prepare_writes()
  common.prepare_mix_reads()
end

function request()
  local r = math.random(100)
  if r <= 90 then
    return common.mix_read(r)
  end
  return common.event_request()
end
