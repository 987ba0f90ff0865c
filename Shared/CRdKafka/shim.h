#pragma once
// librdkafka >= 2.3 (Debian 12's 2.0.2 cannot talk to current brokers; deploy/setup.sh builds 2.8).
#include <librdkafka/rdkafka.h>
