-- wrk script: POST /v1/decide with a JSON body (body given by http.sh in DECIDE_BODY).
-- done() prints one machine-readable line that http.sh parses.
wrk.method = "POST"
wrk.path = "/v1/decide"
wrk.headers["Content-Type"] = "application/json"
wrk.body = os.getenv("DECIDE_BODY")
   or '{"url":"https://app.example.com/home","method":"GET","navigationType":"linkActivated","targetFrame":"main"}'

done = function(summary, latency, requests)
   local e = summary.errors
   io.write(string.format(
      "BENCH requests=%d duration_us=%d rps=%.1f p50_us=%d p99_us=%d max_us=%d " ..
      "err_connect=%d err_read=%d err_write=%d err_status=%d err_timeout=%d\n",
      summary.requests, summary.duration, summary.requests / (summary.duration / 1e6),
      latency:percentile(50), latency:percentile(99), latency.max,
      e.connect, e.read, e.write, e.status, e.timeout))
end
