/*
 * A stand-in for libnvidia-ml.so.1 with two cards of known figures, for tests of the agent's real
 * NVML path (Deno.dlopen, struct layouts, error codes). Built by build_stub_nvml.ts with gcc.
 *
 *   card 0: "NVIDIA GeForce RTX 4090", 24 GiB, 1 GiB used, 37 % busy, 45 C, 120 W of 450 W,
 *           compute 8.9, PCIe Gen4 x16
 *   card 1: "NVIDIA H100 80GB HBM3", 80 GiB, 2 GiB used, 0 % busy, temperature NOT SUPPORTED,
 *           70 W of 700 W, compute 9.0, PCIe Gen5 x16
 *   driver "550.54.15", CUDA 12.4
 *
 * Environment read at call time, so one build serves every test:
 *   STUB_NVML_INIT_ERROR=<code>  nvmlInit_v2 returns that code (18 = driver/library mismatch)
 *   STUB_NVML_PROCS="<card>:<pid>:<bytes>,..."  compute processes (bytes "na" = not available)
 *   STUB_NVML_GPUS=<n>           only the first n cards (0, 1 or 2)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvmlReturn_t;
#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_LIB_RM_VERSION_MISMATCH 18
#define NVML_VALUE_NOT_AVAILABLE 0xFFFFFFFFFFFFFFFFULL

typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct { unsigned int gpu, memory; } nvmlUtilization_t;
/* nvmlProcessInfo_t as _v2/_v3 take it: 24 bytes, pid padded to 8. */
typedef struct {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} nvmlProcessInfo_t;

typedef struct {
  const char *uuid, *name;
  unsigned long long total, used;
  unsigned int util, temp, tempSupported, powerMw, limitMw;
  int ccMajor, ccMinor;
  unsigned int pcieGen, pcieWidth;
} card_t;

static card_t cards[2] = {
  {"GPU-11111111-2222-3333-4444-555555555555", "NVIDIA GeForce RTX 4090", 24ULL * 1073741824ULL,
   1ULL * 1073741824ULL, 37, 45, 1, 120000, 450000, 8, 9, 4, 16},
  {"GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", "NVIDIA H100 80GB HBM3", 80ULL * 1073741824ULL,
   2ULL * 1073741824ULL, 0, 0, 0, 70000, 700000, 9, 0, 5, 16},
};
static int initialised = 0;

static unsigned int ncards(void) {
  const char *n = getenv("STUB_NVML_GPUS");
  if (!n || !*n) return 2;
  int v = atoi(n);
  return v < 0 ? 0 : v > 2 ? 2 : (unsigned int)v;
}

/* A device handle is a pointer to its card entry. */
static card_t *card(void *device) {
  for (int i = 0; i < 2; i++)
    if (device == &cards[i]) return &cards[i];
  return NULL;
}

static nvmlReturn_t put_string(char *dst, unsigned int length, const char *src) {
  if (!dst) return NVML_ERROR_INVALID_ARGUMENT;
  if (strlen(src) + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
  strcpy(dst, src);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlInit_v2(void) {
  const char *e = getenv("STUB_NVML_INIT_ERROR");
  if (e && *e) return atoi(e);
  initialised++;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void) {
  if (!initialised) return NVML_ERROR_UNINITIALIZED;
  initialised--;
  return NVML_SUCCESS;
}

const char *nvmlErrorString(nvmlReturn_t r) {
  switch (r) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH: return "RM has detected an NVML/RM version mismatch.";
    case 9: return "Driver Not Loaded";
    default: return "Unknown Error";
  }
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
  if (!initialised) return NVML_ERROR_UNINITIALIZED;
  return put_string(version, length, "550.54.15");
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v) {
  if (!initialised) return NVML_ERROR_UNINITIALIZED;
  *v = 12040;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) {
  if (!initialised) return NVML_ERROR_UNINITIALIZED;
  *count = ncards();
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, void **device) {
  if (!initialised) return NVML_ERROR_UNINITIALIZED;
  if (index >= ncards() || !device) return NVML_ERROR_INVALID_ARGUMENT;
  *device = &cards[index];
  return NVML_SUCCESS;
}

#define CARD_OR_FAIL(d) card_t *c = card(d); if (!initialised) return NVML_ERROR_UNINITIALIZED; \
  if (!c) return NVML_ERROR_INVALID_ARGUMENT;

nvmlReturn_t nvmlDeviceGetUUID(void *d, char *uuid, unsigned int length) {
  CARD_OR_FAIL(d);
  return put_string(uuid, length, c->uuid);
}

nvmlReturn_t nvmlDeviceGetName(void *d, char *name, unsigned int length) {
  CARD_OR_FAIL(d);
  return put_string(name, length, c->name);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(void *d, nvmlMemory_t *m) {
  CARD_OR_FAIL(d);
  m->total = c->total;
  m->used = c->used;
  m->free = c->total - c->used;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(void *d, nvmlUtilization_t *u) {
  CARD_OR_FAIL(d);
  u->gpu = c->util;
  u->memory = c->util / 2;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(void *d, int sensor, unsigned int *t) {
  CARD_OR_FAIL(d);
  if (sensor != 0) return NVML_ERROR_INVALID_ARGUMENT;
  if (!c->tempSupported) return NVML_ERROR_NOT_SUPPORTED;
  *t = c->temp;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(void *d, unsigned int *mw) {
  CARD_OR_FAIL(d);
  *mw = c->powerMw;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(void *d, unsigned int *mw) {
  CARD_OR_FAIL(d);
  *mw = c->limitMw;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(void *d, int *major, int *minor) {
  CARD_OR_FAIL(d);
  *major = c->ccMajor;
  *minor = c->ccMinor;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(void *d, unsigned int *gen) {
  CARD_OR_FAIL(d);
  *gen = c->pcieGen;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(void *d, unsigned int *width) {
  CARD_OR_FAIL(d);
  *width = c->pcieWidth;
  return NVML_SUCCESS;
}

/* STUB_NVML_PROCS entries for this card, into infos (up to cap); returns how many there are. */
static unsigned int procs_for(int index, nvmlProcessInfo_t *infos, unsigned int cap) {
  const char *spec = getenv("STUB_NVML_PROCS");
  if (!spec) return 0;
  char buf[4096];
  strncpy(buf, spec, sizeof buf - 1);
  buf[sizeof buf - 1] = 0;
  unsigned int n = 0;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int cardIndex = -1;
    unsigned int pid = 0;
    char bytes[64] = "";
    if (sscanf(tok, "%d:%u:%63s", &cardIndex, &pid, bytes) != 3 || cardIndex != index) continue;
    if (n < cap && infos) {
      infos[n].pid = pid;
      infos[n].usedGpuMemory =
          strcmp(bytes, "na") == 0 ? NVML_VALUE_NOT_AVAILABLE : strtoull(bytes, NULL, 10);
      infos[n].gpuInstanceId = 0xFFFFFFFF;
      infos[n].computeInstanceId = 0xFFFFFFFF;
    }
    n++;
  }
  return n;
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(void *d, unsigned int *count,
                                                     nvmlProcessInfo_t *infos) {
  CARD_OR_FAIL(d);
  if (!count) return NVML_ERROR_INVALID_ARGUMENT;
  unsigned int have = procs_for((int)(c - cards), NULL, 0);
  if (have > *count || (have > 0 && !infos)) {
    *count = have;
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  *count = procs_for((int)(c - cards), infos, *count);
  return NVML_SUCCESS;
}
