import CRdKafka

/// What a process that uses librdkafka does once, first thing in `main`.
public enum KafkaProcess {
    /// Keeps OpenSSL (loaded with librdkafka) from freeing its state in an atexit handler while other threads may
    /// still be inside libcrypto as the process ends (see `nutrition_openssl_without_atexit_cleanup` in the shim). Must
    /// run before anything initialises OpenSSL; later calls change nothing.
    public static func prepare() {
        _ = nutrition_openssl_without_atexit_cleanup()
    }
}
