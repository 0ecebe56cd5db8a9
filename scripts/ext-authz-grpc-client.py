#!/usr/bin/env python3
"""Envoy's side of the ext_authz gRPC listener, with the reference implementations: grpcio (the
gRPC client) and xds-protos (Envoy's API, generated). The live tests
(Tests/IntegrationTests/ExtAuthzGRPCLiveTests.swift) and bench/ext-authz-grpc.sh run it; it
prints one JSON object per call on stdout.

  check PORT METHOD SCHEME HOST PATH [NAME=VALUE...]   Authorization/Check with these http fields
                                                       (@id=VALUE: http.id, Envoy's x-request-id;
                                                       @source=ADDRESS: attributes.source's address)
  health PORT [SERVICE]                                grpc.health.v1.Health/Check
  raw PORT GRPC_PATH HEX                               a unary call carrying these bytes as the message
  vectors PORT DECIDE_BASE VECTOR_FILE                 every conformance case via Check and GET /v1/decide
  request-body OUT METHOD SCHEME HOST PATH              writes a length-prefixed CheckRequest (h2load -d)
"""
import json
import struct
import sys
import urllib.parse
import urllib.request

import grpc
from envoy.service.auth.v3 import attribute_context_pb2, external_auth_pb2
from grpc_health.v1 import health_pb2

CHECK = "/envoy.service.auth.v3.Authorization/Check"


def channel(port):
    return grpc.insecure_channel(f"127.0.0.1:{port}")


def check_request(method, scheme, host, path, headers):
    fields = {name[1:]: value for name, value in headers if name.startswith("@")}
    headers = [(name, value) for name, value in headers if not name.startswith("@")]
    http = attribute_context_pb2.AttributeContext.HttpRequest(
        method=method, scheme=scheme, host=host, path=path, protocol="HTTP/1.1", id=fields.get("id", "1"))
    # What Envoy puts in the map: the pseudo-headers and the request's headers, lowercase.
    http.headers[":authority"] = host
    http.headers[":method"] = method
    http.headers[":path"] = path
    for name, value in headers:
        http.headers[name.lower()] = value
    request = external_auth_pb2.CheckRequest()
    request.attributes.request.http.CopyFrom(http)
    if "source" in fields:
        request.attributes.source.address.socket_address.address = fields["source"]
        request.attributes.source.address.socket_address.port_value = 50000
    # Envoy also fills the destination peer: the daemon must skip it.
    request.attributes.destination.address.socket_address.address = "10.0.0.2"
    return request


def call_check(port, method, scheme, host, path, headers):
    stub = channel(port).unary_unary(
        CHECK, request_serializer=external_auth_pb2.CheckRequest.SerializeToString,
        response_deserializer=external_auth_pb2.CheckResponse.FromString)
    try:
        response = stub(check_request(method, scheme, host, path, headers), timeout=10)
    except grpc.RpcError as error:
        return {"transport": error.code().name, "details": error.details()}
    result = {"code": response.status.code}
    if response.HasField("ok_response"):
        options = response.ok_response.headers
        result.update(allowed=True, headersToRemove=list(response.ok_response.headers_to_remove))
    else:
        options = response.denied_response.headers
        result.update(
            allowed=False, httpStatus=response.denied_response.status.code, body=response.denied_response.body)
    result["headers"] = {option.header.key: option.header.value for option in options}
    result["dynamicMetadata"] = {
        key: value.string_value for key, value in response.dynamic_metadata.fields.items()}
    result["appendActions"] = sorted({option.append_action for option in options})
    return result


def main(argv):
    command, port = argv[1], argv[2]
    if command == "check":
        headers = [tuple(pair.split("=", 1)) for pair in argv[7:]]
        print(json.dumps(call_check(port, argv[3], argv[4], argv[5], argv[6], headers)))
    elif command == "health":
        stub = channel(port).unary_unary(
            "/grpc.health.v1.Health/Check", request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
            response_deserializer=health_pb2.HealthCheckResponse.FromString)
        try:
            response = stub(health_pb2.HealthCheckRequest(service=argv[3] if len(argv) > 3 else ""), timeout=10)
            print(json.dumps({"status": health_pb2.HealthCheckResponse.ServingStatus.Name(response.status)}))
        except grpc.RpcError as error:
            print(json.dumps({"transport": error.code().name, "details": error.details()}))
    elif command == "raw":
        stub = channel(port).unary_unary(argv[3])
        try:
            response = stub(bytes.fromhex(argv[4]), timeout=10)
            print(json.dumps({"transport": "OK", "message": response.hex()}))
        except grpc.RpcError as error:
            print(json.dumps({"transport": error.code().name, "details": error.details()}))
    elif command == "vectors":
        print(json.dumps(vectors(port, argv[3], argv[4])))
    elif command == "request-body":
        # argv[2] is the output file here
        message = check_request(argv[3], argv[4], argv[5], argv[6], []).SerializeToString()
        with open(argv[2], "wb") as out:
            out.write(struct.pack(">BI", 0, len(message)) + message)
    else:
        sys.exit(f"unknown command {command}")


def vectors(port, decide_base, path):
    """Each case as Envoy would report it: the host as the client sent it (the case's own
    spelling, so host canonicalization is exercised), the path and query as a browser puts
    them on the wire (the case's serialized URL, no fragment), Sec-Fetch-* for its navigation
    type and frame. The same request goes through Check and through GET /v1/decide (with the
    navigation type and frame those headers express); the mismatches are returned. Cases no
    HTTP request can carry (userinfo, no host, a host or target with spaces, controls or a backslash)
    are skipped and listed."""
    with open(path) as file:
        document = json.load(file)
    compared, skipped, mismatches = 0, [], []
    for case in document["cases"]:
        request, expect = case["request"], case["expect"]
        method = request.get("method", "GET")
        try:
            raw = urllib.parse.urlsplit(request["url"])
        except ValueError:
            skipped.append(case["name"])
            continue
        wire = urllib.parse.urlsplit(expect["url"]) if expect.get("url") else raw
        target = (wire.path or "/") + ("?" + wire.query if wire.query else "")
        if (raw.scheme not in ("http", "https") or not raw.netloc or "@" in raw.netloc
                or any(ch in " \\#" or ord(ch) < 0x21 or ord(ch) == 0x7F for ch in target + raw.netloc)):
            skipped.append(case["name"])
            continue
        headers = [("sec-fetch-dest", "iframe" if request.get("targetFrame") == "sub" else "document")]
        navigation = "other"
        if request.get("navigationType") in ("linkActivated", "formSubmitted"):
            headers.append(("sec-fetch-mode", "navigate"))
            navigation = "formSubmitted" if method.upper() == "POST" else "linkActivated"
        frame = "sub" if request.get("targetFrame") == "sub" else "main"
        grpc_answer = call_check(port, method, raw.scheme, raw.netloc, target, headers)
        query = urllib.parse.urlencode({
            "url": f"{raw.scheme}://{raw.netloc}{target}", "method": method, "navigationType": navigation,
            "targetFrame": frame})
        try:
            with urllib.request.urlopen(f"{decide_base}/v1/decide?{query}", timeout=10) as response:
                decide = json.load(response)
        except urllib.error.HTTPError as error:
            decide = {"status": error.code}
        compared += 1
        if "status" in decide:
            same = grpc_answer.get("allowed") is False and grpc_answer.get("httpStatus") == decide["status"]
        else:
            got = grpc_answer.get("headers", {})
            same = (
                got.get("x-navigation-decision") == decide["decision"]
                and got.get("x-navigation-action") == decide.get("action")
                and (grpc_answer.get("allowed") is True) == (decide["decision"] == "allow")
                and got.get("location") == (decide.get("location") if decide["decision"] == "cancel" else None))
        if not same:
            mismatches.append({"case": case["name"], "grpc": grpc_answer, "decide": decide})
    return {"compared": compared, "skipped": skipped, "mismatches": mismatches}


if __name__ == "__main__":
    main(sys.argv)
