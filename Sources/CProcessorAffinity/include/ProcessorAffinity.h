#ifndef MASONRY_PROCESSOR_AFFINITY_H
#define MASONRY_PROCESSOR_AFFINITY_H
/// The CPUs in this process's affinity mask (sched_getaffinity: what taskset and container
/// runtimes restrict), or 0 when it cannot be read. In C: CPU_COUNT and the call need _GNU_SOURCE,
/// which Swift's Glibc module does not define.
int mpa_affinity_processor_count(void);
#endif
