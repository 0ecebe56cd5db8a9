-- wrk script for bench/intake.sh: every request shares a URL no other request used,
-- so every answer is a new item (201) and every one costs a durable write.
local counter = 0
-- thread_id is a global on purpose: setup() sets it per thread with thread:set, which a
-- `local` here would shadow (every thread would then post the same URLs, half of them duplicates).
thread_id = 0
local threads = {}

function setup(thread)
  thread:set("thread_id", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  run_id = args[1] or "run"
end

function request()
  counter = counter + 1
  local body = string.format('{"url":"https://bench.example/%s/%d/%d","title":"bench"}', run_id, thread_id, counter)
  return wrk.format("POST", "/v1/intake", { ["Content-Type"] = "application/json" }, body)
end

function done(summary, latency, requests)
  local non2xx = summary.errors.status
  io.write(string.format("RESULT requests=%d non2xx=%d seconds=%.3f p50_ms=%.2f p99_ms=%.2f\n",
    summary.requests, non2xx, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
