/// An area refused a composed call (a 4xx): the gateway answers the client with that refusal as it came.
struct SyncAreaRefusal: Error {
    var answer: SyncAreaAnswer
}
