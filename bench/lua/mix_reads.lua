-- The reads of mix.lua alone, in its proportions (common.mix_read): what `mix` would
-- serve if nobody wrote, its yardstick.
local common = require("common")
setup = common.setup
done = common.done

function init(args)
  common.init()
  common.prepare_mix_reads()
end

function request()
  return common.mix_read(math.random(90))
end
