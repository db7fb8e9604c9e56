#ifndef IIDBATCH_CRDKAFKA_SHIM_H
#define IIDBATCH_CRDKAFKA_SHIM_H
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#if defined(__linux__) && defined(__GLIBC__)
/* mallopt, for RDKafkaProcess.keepLargeBuffers: librdkafka's fetch buffers. */
#include <malloc.h>
#endif
#endif
