-- Writes that take things away from events of the data set: of every 10, 4 replace an
-- event's categories and tags (POST /events/{id}), 4 move one to the trash
-- (DELETE /events/{id}) and 2 delete one for good (DELETE /events/{id}?force=true).
-- The manifest's removable_ids split in two: the first half have their terms edited, the
-- second half are removed, each once (common.removal_request), so that no request finds
-- its event gone; a thread whose share of removals is used up edits terms only.
local common = require("common")
setup = common.setup
done = common.done

function init(args)
  common.init()
  local ids = common.lines("removable_ids")
  local half = math.floor(#ids / 2)
  local edited, removed = {}, {}
  for i = 1, #ids do
    if i <= half then edited[#edited + 1] = ids[i] else removed[#removed + 1] = ids[i] end
  end
  common.prepare_term_edits(edited)
  common.prepare_removals(removed)
end

function request()
  local r = math.random(10)
  if r > 4 then
    local removal = common.removal_request(r > 8)
    if removal then return removal end
  end
  return common.term_edit_request()
end
