-- Shared by the scenario scripts: the JSON report, the sample files the generator's
-- `manifest` command writes, and event bodies for the write scenarios.
--
-- Environment (set by bench/run.sh):
--   BENCH_REPORT    file the done() hook writes its JSON to (stdout if unset)
--   BENCH_MANIFEST  directory written by `calendar-bench manifest`
--   BENCH_API       API base path, e.g. /calendar/events/v1

local M = {}

M.api = os.getenv("BENCH_API") or "/calendar/events/v1"

function M.lines(name)
  local dir = os.getenv("BENCH_MANIFEST") or "."
  local path = dir .. "/" .. name
  local f = assert(io.open(path, "r"), "cannot read " .. path)
  local out = {}
  for line in f:lines() do
    if line ~= "" then
      out[#out + 1] = line
    end
  end
  f:close()
  assert(#out > 0, path .. " is empty")
  return out
end

function M.pick(list)
  return list[math.random(#list)]
end

-- setup() runs in the main Lua state, once per wrk thread; giving each thread a number
-- lets it seed its own random sequence, so runs repeat the same requests.
local thread_count = 0
function M.setup(thread)
  thread_count = thread_count + 1
  thread:set("thread_id", thread_count)
end

function M.init()
  math.randomseed(1000 + (thread_id or 0))
end

-- Latencies in milliseconds. "non2xx" is wrk's count of responses with a status of 400
-- or more (the server sends no 1xx or 3xx on the benchmarked routes); counting every
-- status in a response() hook would make wrk copy each body into Lua and slow it down.
function M.done(summary, latency, requests)
  local e = summary.errors
  local seconds = summary.duration / 1e6
  local function ms(us) return us / 1000 end
  local json = string.format(
    '{"requests":%d,"duration_s":%.3f,"rps":%.1f,"bytes":%d,' ..
    '"latency_ms":{"mean":%.3f,"stdev":%.3f,"min":%.3f,"max":%.3f,' ..
    '"p50":%.3f,"p90":%.3f,"p99":%.3f,"p999":%.3f},' ..
    '"errors":{"non2xx":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d}}',
    summary.requests, seconds, summary.requests / seconds, summary.bytes,
    ms(latency.mean), ms(latency.stdev), ms(latency.min), ms(latency.max),
    ms(latency:percentile(50)), ms(latency:percentile(90)),
    ms(latency:percentile(99)), ms(latency:percentile(99.9)),
    e.status, e.connect, e.read, e.write, e.timeout)
  local out = os.getenv("BENCH_REPORT")
  if out then
    local f = assert(io.open(out, "w"))
    f:write(json, "\n")
    f:close()
  else
    io.write(json, "\n")
  end
end

-- Event bodies for POST /events -----------------------------------------------------

local adjectives = { "golden", "quiet", "bright", "hidden", "grand", "little", "northern",
  "royal", "sunny", "velvet", "crystal", "modern", "secret", "lively", "cozy", "midnight" }
local genres = { "rock", "folk", "blues", "salsa", "opera", "poetry", "comedy", "film",
  "yoga", "chess", "pottery", "cooking", "cycling", "coding", "astronomy", "dance" }
local kinds = { "festival", "concert", "workshop", "meetup", "fair", "class", "lecture",
  "tour", "screening", "reading", "tasting", "night", "showcase", "social" }

local writes = nil

local function load_write_samples()
  local auth = M.lines("authorization")[1]
  writes = {
    headers = { ["Content-Type"] = "application/json", ["Authorization"] = auth },
    categories = M.lines("category_ids"),
    tags = M.lines("tag_ids"),
    venues = M.lines("venue_ids"),
    organizers = M.lines("organizer_ids"),
    counter = 0,
  }
end

local function title_case(s)
  return (s:gsub("^%l", string.upper))
end

-- A published event like the generated ones: one venue, one or two organizers, a
-- category and a tag, sometime in the next year. Titles repeat words, as real ones do,
-- so the server's slug de-duplication does real work.
local function build_event_request()
  if not writes then load_write_samples() end
  writes.counter = writes.counter + 1
  local title = string.format("%s %s %s", title_case(M.pick(adjectives)),
    title_case(M.pick(genres)), title_case(M.pick(kinds)))
  local start = os.time() + math.random(1, 365) * 86400 + math.random(16, 44) * 1800
  local finish = start + math.random(2, 8) * 1800
  local organizers = '{"id":' .. M.pick(writes.organizers) .. '}'
  if math.random() < 0.3 then
    organizers = organizers .. ',{"id":' .. M.pick(writes.organizers) .. '}'
  end
  local body = string.format(
    '{"title":"%s","description":"<p>Written by the load test: thread %d, request %d. ' ..
    'Join us for an evening of %s with local artists and friends.</p>",' ..
    '"start_date":"%s","end_date":"%s","status":"publish","cost":"%d",' ..
    '"venue":{"id":%s},"organizer":[%s],"categories":[%s],"tags":[%s]}',
    title, thread_id or 0, writes.counter, M.pick(genres),
    os.date("!%Y-%m-%d %H:%M:%S", start), os.date("!%Y-%m-%d %H:%M:%S", finish),
    5 * math.random(1, 20), M.pick(writes.venues), organizers,
    M.pick(writes.categories), M.pick(writes.tags))
  return wrk.format("POST", M.api .. "/events", writes.headers, body)
end

-- Requests are built ahead, in init(): formatting one in Lua costs more CPU than the
-- server spends on it, and wrk shares the machine with the server under test.
local POOL_SIZE = 4096

-- POOL_SIZE requests made by build(), and the function that serves them in turn.
local function request_pool(build)
  local requests, next_one = {}, 0
  for i = 1, POOL_SIZE do
    requests[i] = build()
  end
  return function()
    next_one = next_one % POOL_SIZE + 1
    return requests[next_one]
  end
end

local next_event, next_edit = nil, nil

function M.prepare_writes()
  next_event = request_pool(build_event_request)
end

function M.event_request()
  if not next_event then M.prepare_writes() end
  return next_event()
end

-- An edit of an existing event, as an editor moves one (POST /events/{id}): new dates
-- sometime in the next year, another venue and organizer. IDs from the data set.
local function build_edit_request(ids)
  local start = os.time() + math.random(1, 365) * 86400 + math.random(16, 44) * 1800
  local finish = start + math.random(2, 8) * 1800
  local body = string.format(
    '{"start_date":"%s","end_date":"%s","venue":{"id":%s},"organizer":[{"id":%s}]}',
    os.date("!%Y-%m-%d %H:%M:%S", start), os.date("!%Y-%m-%d %H:%M:%S", finish),
    M.pick(writes.venues), M.pick(writes.organizers))
  return wrk.format("POST", M.api .. "/events/" .. M.pick(ids), writes.headers, body)
end

function M.prepare_edits()
  if not writes then load_write_samples() end
  local ids = M.lines("event_ids")
  next_edit = request_pool(function() return build_edit_request(ids) end)
end

function M.edit_request()
  if not next_edit then M.prepare_edits() end
  return next_edit()
end

-- An edit that replaces an event's categories and tags (POST /events/{id}): one or two
-- categories, one tag, so the event loses the links it had.
local function build_term_edit_request(ids)
  local categories = M.pick(writes.categories)
  if math.random() < 0.5 then
    categories = categories .. "," .. M.pick(writes.categories)
  end
  local body = string.format('{"categories":[%s],"tags":[%s]}', categories, M.pick(writes.tags))
  return wrk.format("POST", M.api .. "/events/" .. M.pick(ids), writes.headers, body)
end

local next_term_edit = nil

-- Term edits of the events `ids`.
function M.prepare_term_edits(ids)
  if not writes then load_write_samples() end
  next_term_edit = request_pool(function() return build_term_edit_request(ids) end)
end

function M.term_edit_request()
  return next_term_edit()
end

-- Events to remove, each once: thread i of n takes the i-th, (i+n)-th, ... of `ids`, so
-- no two threads remove the same event. removal_request returns nil once the thread's
-- share is used up.
local removable, next_removable, removal_stride = nil, nil, nil

function M.prepare_removals(ids)
  if not writes then load_write_samples() end
  removable = ids
  next_removable = thread_id or 1
  removal_stride = tonumber(os.getenv("BENCH_THREADS") or "1")
end

function M.removal_request(force)
  local id = removable[next_removable]
  if not id then return nil end
  next_removable = next_removable + removal_stride
  local path = M.api .. "/events/" .. id .. (force and "?force=true" or "")
  return wrk.format("DELETE", path, { ["Authorization"] = writes.headers["Authorization"] })
end

-- The reads of the mix scenarios, by a number from 1 to 90: 40 list upcoming events,
-- 10 list a filtered month (BENCH_FILTER_QUERY), 25 read an event by ID, 15 by slug.
local mix_ids, mix_slugs
function M.prepare_mix_reads()
  mix_ids = M.lines("event_ids")
  mix_slugs = M.lines("event_slugs")
end

function M.mix_read(r)
  if r <= 40 then
    return wrk.format("GET", M.api .. "/events")
  elseif r <= 50 then
    return wrk.format("GET", M.api .. "/events?" .. (os.getenv("BENCH_FILTER_QUERY") or ""))
  elseif r <= 75 then
    return wrk.format("GET", M.api .. "/events/" .. M.pick(mix_ids))
  else
    return wrk.format("GET", M.api .. "/events/by-slug/" .. M.pick(mix_slugs))
  end
end

return M
