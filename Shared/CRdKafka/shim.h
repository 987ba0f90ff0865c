#pragma once
// librdkafka >= 2.3 (Debian 12's 2.0.2 cannot talk to current brokers; deploy/setup.sh builds a current one).
#include <librdkafka/rdkafka.h>
#include <openssl/crypto.h>

// OpenSSL (which librdkafka loads) cleans itself up in an atexit handler by default. In a process whose other threads
// (librdkafka's own, a thread pool's) may still be inside libcrypto when `main` returns, that handler frees what they
// use: the sharing service once ended a clean SIGTERM with a segmentation fault in libcrypto after heap corruption
// ("malloc_consolidate(): unaligned fastbin chunk detected"). Called first thing in `main`, before anything
// initialises OpenSSL, this keeps OpenSSL's state until the process is gone (the kernel reclaims it).
static inline int nutrition_openssl_without_atexit_cleanup(void) {
    return OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}

// rd_kafka_producev is variadic, which Swift cannot call: this fixed-argument form produces one message with
// headers to any partition (chosen by key), copying the payload. On success librdkafka owns `headers`; on failure
// the caller still does.
static inline rd_kafka_resp_err_t nutrition_produce(rd_kafka_t *rk, rd_kafka_topic_t *rkt, const void *value, size_t value_size,
                                                    const void *key, size_t key_size, rd_kafka_headers_t *headers, void *opaque) {
    return rd_kafka_producev(rk, RD_KAFKA_V_RKT(rkt), RD_KAFKA_V_PARTITION(RD_KAFKA_PARTITION_UA),
                             RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_VALUE((void *)value, value_size),
                             RD_KAFKA_V_KEY(key, key_size), RD_KAFKA_V_HEADERS(headers), RD_KAFKA_V_OPAQUE(opaque),
                             RD_KAFKA_V_END);
}
