-- One wrk script for every scenario, configured by environment variables (set by bench/run.ts):
--   BENCH_METHOD   HTTP method (default GET)
--   BENCH_PATHS    file with one request path per line; requests rotate through it
--   BENCH_SLICE    "1": thread i of BENCH_THREADS takes only paths i, i + n, i + 2n, … (send and
--                  refund: no two requests touch the same application, and the paths used are a
--                  prefix of the list, reported as "used"); otherwise every thread rotates through
--                  the whole list from its own offset
--   BENCH_BODY     optional file with the request body; "{{ORDER}}" becomes an order number unique
--                  per request (BENCH_RUN, thread, counter)
--   BENCH_TOKEN    optional bearer token
--   BENCH_THREADS  number of wrk threads (for slicing)
-- done() prints one line "BENCHJSON {...}" with throughput, percentiles, errors (non-2xx + socket)
-- and, when slicing, how many paths from the top of the list the run used and how many threads
-- came to the end of the list and started again (reusing paths).

local threads = {}
local counter = 1

function setup(thread)
  thread:set("tid", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

local function lines(path)
  local list = {}
  for line in io.lines(path) do
    if #line > 0 then table.insert(list, line) end
  end
  return list
end

local function slurp(path)
  local f = assert(io.open(path, "rb"))
  local text = f:read("*a")
  f:close()
  return text
end

local method, paths, first, last, step, index, body, headers, run, sent
-- Globals, read by done() through thread:get().
highest = 0
wrapped = 0
non2xx = 0
statuses = ""
local seen = {}

function init(args)
  method = os.getenv("BENCH_METHOD") or "GET"
  paths = lines(assert(os.getenv("BENCH_PATHS"), "BENCH_PATHS is required"))
  local n = tonumber(os.getenv("BENCH_THREADS") or "1")
  if os.getenv("BENCH_SLICE") == "1" then
    first = tid
    step = n
    index = first
  else
    first = 1
    step = 1
    index = first + ((tid - 1) * 7919) % #paths
  end
  last = #paths
  local bodyFile = os.getenv("BENCH_BODY")
  if bodyFile and #bodyFile > 0 then body = slurp(bodyFile) end
  headers = { ["Accept"] = "application/json" }
  local token = os.getenv("BENCH_TOKEN")
  if token and #token > 0 then headers["Authorization"] = "Bearer " .. token end
  if body then headers["Content-Type"] = "application/json" end
  run = os.getenv("BENCH_RUN") or "run"
  sent = 0
end

function request()
  local path = paths[index]
  if index <= highest then wrapped = 1 else highest = index end
  index = index + step
  if index > last then index = first end
  sent = sent + 1
  local payload = nil
  if body then
    payload = body:gsub("{{ORDER}}", run .. "-" .. tid .. "-" .. sent)
  end
  return wrk.format(method, path, headers, payload)
end

function response(status, hdrs, text)
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
    local key = tostring(status)
    if not seen[key] then
      seen[key] = true
      -- The first body of each failing status, for the diagnosis.
      statuses = statuses .. key .. " " .. string.sub(text or "", 1, 160):gsub("[\r\n\"\\]", " ") .. "; "
    end
  end
end

function done(summary, latency, requests)
  local failed = 0
  local notes = ""
  local used, wraps = 0, 0
  for _, thread in ipairs(threads) do
    failed = failed + (thread:get("non2xx") or 0)
    notes = notes .. (thread:get("statuses") or "")
    used = math.max(used, thread:get("highest") or 0)
    wraps = wraps + (thread:get("wrapped") or 0)
  end
  local e = summary.errors
  local socket = e.connect + e.read + e.write + e.timeout
  local seconds = summary.duration / 1e6
  io.write(string.format(
    'BENCHJSON {"requests":%d,"seconds":%.3f,"rps":%.2f,"p50":%.3f,"p90":%.3f,"p99":%.3f,"max":%.3f,"non2xx":%d,"socketErrors":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"used":%d,"wrapped":%d,"notes":"%s"}\n',
    summary.requests, seconds, summary.requests / seconds,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, failed, socket, e.connect, e.read, e.write, e.timeout, used, wraps, notes))
end
