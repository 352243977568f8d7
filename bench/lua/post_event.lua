-- POST /events as the benchmark administrator (HTTP Basic): write throughput.
local common = require("common")
setup = common.setup
done = common.done

function init(args)
  common.init()
  common.prepare_writes()
end

function request()
  return common.event_request()
end
