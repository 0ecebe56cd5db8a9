#!/usr/bin/env python3
"""Prints the hex fixtures of Tests/ExtAuthzGRPCTests/CheckRequestFixtures.swift: real
envoy.service.auth.v3 and grpc.health.v1 messages serialized by the reference protobuf runtime
(PyPI protobuf + xds-protos + grpcio-health-checking), so the Swift codec is checked against
bytes it did not produce. Run: python3 scripts/ext-authz-fixtures.py (in a venv with those)."""
from envoy.config.core.v3 import base_pb2
from envoy.service.auth.v3 import attribute_context_pb2 as ac
from envoy.service.auth.v3 import external_auth_pb2 as ea
from envoy.type.v3 import http_status_pb2
from google.protobuf import timestamp_pb2
from grpc_health.v1 import health_pb2


def check_request(**http):
    request = ea.CheckRequest()
    request.attributes.request.http.CopyFrom(ac.AttributeContext.HttpRequest(**http))
    return request


fixtures = {}
# What Envoy sends by default: the headers map (pseudo-headers included), plus fields the
# decoder skips (peers, time, size, protocol, context extensions).
full = check_request(
    id="4114", method="GET", path="/account/logout?next=%2F", host="app.example.com", scheme="https",
    protocol="HTTP/1.1", size=-1)
full.attributes.request.http.headers[":authority"] = "app.example.com"
full.attributes.request.http.headers["accept"] = "text/html"
full.attributes.source.address.socket_address.address = "10.0.0.7"
full.attributes.source.address.socket_address.port_value = 51234
full.attributes.request.time.CopyFrom(timestamp_pb2.Timestamp(seconds=1_800_000_000, nanos=5))
full.attributes.context_extensions["virtual_host"] = "app"
fixtures["envoyDefault"] = full
# encode_raw_headers: header_map with raw_value bytes instead of the map.
raw = check_request(method="POST", path="/pay", host="shop.example", scheme="http")
raw.attributes.request.http.header_map.headers.append(base_pb2.HeaderValue(key="x-a", raw_value=b"1"))
raw.attributes.request.http.header_map.headers.append(base_pb2.HeaderValue(key="x-a", raw_value=b"2"))
fixtures["rawHeaders"] = raw
# A body Envoy buffered (with_request_body): skipped.
fixtures["withBody"] = check_request(method="PUT", path="/", host="h", scheme="https", body="x" * 300, raw_body=b"\xff\x00")
fixtures["empty"] = ea.CheckRequest()

allow = ea.CheckResponse()
allow.status.code = 0
allow.ok_response.headers.append(
    base_pb2.HeaderValueOption(
        header=base_pb2.HeaderValue(key="x-navigation-decision", value="allow"),
        append_action=base_pb2.HeaderValueOption.OVERWRITE_IF_EXISTS_OR_ADD))
fixtures["okResponse"] = allow
deny = ea.CheckResponse()
deny.status.code = 7
deny.denied_response.status.code = http_status_pb2.Found
deny.denied_response.headers.append(
    base_pb2.HeaderValueOption(
        header=base_pb2.HeaderValue(key="location", value="https://example.com/"),
        append_action=base_pb2.HeaderValueOption.OVERWRITE_IF_EXISTS_OR_ADD))
deny.denied_response.body = "moved"
fixtures["deniedResponse"] = deny
fixtures["healthRequest"] = health_pb2.HealthCheckRequest(service="envoy.service.auth.v3.Authorization")
fixtures["healthServing"] = health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)

for name, message in fixtures.items():
    print(f'    static let {name} = "{message.SerializeToString(deterministic=True).hex()}"')
