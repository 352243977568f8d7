-- GET of the URL given to wrk, unchanged: wrk's own pre-built request, the cheapest
-- load it can generate.
local common = require("common")
setup = common.setup
done = common.done
