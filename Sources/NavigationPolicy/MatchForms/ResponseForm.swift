/// A cancelling handler's `response`: how its cancels are answered over HTTP (status, extra
/// fields, request fields removed upstream in a dry run). It shapes the answer, never the verdict.
enum ResponseForm {
    static let description = MatchFormDescription(
        form: .response, configKey: "response", place: .handler, field: nil, storage: ["response"],
        normalisation: "DenialResponse.decode: status one of 401, 403, 404, 410, 451 (none with a location), field "
            + "names RFC 9110 tokens lower-cased, values without control characters, bounded",
        predicate: "the decision's response when the handler decides", reads: .nothing, index: .notACondition,
        automaton: .none, image: .json, analysis: .outcome)
}
