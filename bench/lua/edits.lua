-- Writes as editors at work: of every 10, 6 create an event (as post_event.lua) and 4
-- edit one of the data set's (common.edit_request: new dates, another venue and
-- organizer). Creates are written in batches and edits one by one, and they cross on
-- the rows they share (a venue's or an organizer's summary, a day's counts).
local common = require("common")
setup = common.setup
done = common.done

function init(args)
  common.init()
  common.prepare_writes()
  common.prepare_edits()
end

function request()
  if math.random(10) <= 6 then
    return common.event_request()
  end
  return common.edit_request()
end
