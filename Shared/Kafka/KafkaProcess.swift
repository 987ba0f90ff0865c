import CRdKafka

/// What a process that uses librdkafka does once, first thing in `main`.
public enum KafkaProcess {
    /// Keeps OpenSSL (loaded with librdkafka) from freeing its state in an atexit handler while other threads may
    /// still be inside libcrypto as the process ends (see `nutrition_openssl_without_atexit_cleanup` in the shim). Must
    /// run before anything initialises OpenSSL; later calls change nothing. Every client's configuration calls it
    /// (`RdKafkaConfig.make`), so a process that creates clients is prepared even without this call in its `main`;
    /// a service's `main` makes it first all the same, before any other library can load OpenSSL.
    public static func prepare() {
        _ = nutrition_openssl_without_atexit_cleanup()
    }
}
