-- wrk script for bench/http.sh: GET /v1/decide?url=… (DECIDE_METHOD=GET, path in DECIDE_PATH)
-- or POST /v1/decide with a JSON body (DECIDE_METHOD=POST, body in DECIDE_BODY).
-- done() prints one machine-readable line that http.sh parses.
if os.getenv("DECIDE_METHOD") == "POST" then
   wrk.method = "POST"
   wrk.path = "/v1/decide"
   wrk.headers["Content-Type"] = "application/json"
   wrk.body = os.getenv("DECIDE_BODY")
      or '{"url":"https://app.example.com/home","method":"GET","navigationType":"linkActivated","targetFrame":"main"}'
else
   -- The static request (wrk.method/path), not a `request = function() ... end` callback: a
   -- callback runs Lua for every request, and on a machine where wrk shares the cores with the
   -- server that extra client CPU slows the cheapest servers (nginx, the C reference) more than
   -- navpolicyd, which flatters navpolicyd's GET ratios (measured: nginx 58k -> 68k req/s with
   -- the static form, navpolicyd 45k -> 48k). POST has always been static; now both are alike.
   wrk.method = "GET"
   wrk.path = os.getenv("DECIDE_PATH") or "/v1/decide?url=https%3A%2F%2Fapp.example.com%2Fhome"
end

done = function(summary, latency, requests)
   local e = summary.errors
   io.write(string.format(
      "BENCH requests=%d duration_us=%d rps=%.1f p50_us=%d p99_us=%d max_us=%d " ..
      "err_connect=%d err_read=%d err_write=%d err_status=%d err_timeout=%d\n",
      summary.requests, summary.duration, summary.requests / (summary.duration / 1e6),
      latency:percentile(50), latency:percentile(99), latency.max,
      e.connect, e.read, e.write, e.status, e.timeout))
end
