-- wrk script: GET /v1/decide?url=… rotating over a URL corpus (one URL per line in URLS_FILE).
-- Each wrk thread starts at a different offset so threads do not ask in lock step.
-- done() prints one machine-readable line that rules.sh parses.
local function encode(text)
   return (text:gsub("[^%w%-%._~]", function(c) return string.format("%%%02X", string.byte(c)) end))
end

local paths = {}
local file = os.getenv("URLS_FILE")
for line in io.lines(file) do
   if #line > 0 then paths[#paths + 1] = "/v1/decide?url=" .. encode(line) end
end
local index = math.random(1, #paths)

request = function()
   index = index % #paths + 1
   return wrk.format("GET", paths[index])
end

done = function(summary, latency, requests)
   local e = summary.errors
   io.write(string.format(
      "BENCH requests=%d rps=%.1f p50_us=%d p99_us=%d errors=%d non2xx=%d\n",
      summary.requests, summary.requests / (summary.duration / 1e6),
      latency:percentile(50), latency:percentile(99),
      e.connect + e.read + e.write + e.timeout, e.status))
end
