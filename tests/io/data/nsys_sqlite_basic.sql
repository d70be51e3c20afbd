-- A hand-made nsys SQLite export for tests/io/nsys_sqlite_test.cpp and tests/cli/nsys_sqlite_cli.cmake.
-- The tables and columns follow the 2024-2026 `nsys export --type sqlite` schema written down in
-- ../shared/FORMATS.md section 4; it is NOT a recorded export (nsys cannot record on our machines).
-- NOT NULL is left off `start` so that a bad row can be written.
--
-- Hand counts (all times ns, session-relative; the earliest GPU activity, the memcpy at 900000,
-- becomes start_s = 0):
--   kernel rows 7: 5 good, 1 with end < start (negative_dur), 1 with start NULL (null_start)
--     gemm  nvjet  1000000..1050000  50 us  grid 132x1x1 block 384x1x1  168 regs  smem 0+207000
--     attn  flash  1060000..1080000  20 us  grid 64x8x1  block 128x1x1  255 regs  smem 16384+0
--     comm  nccl   1100000..1130000  30 us  (no demangledName: the shortName is used)
--     gemm  nvjet  1200000..1250000  50 us
--     elem  quant  1260000..1265000   5 us
--   memcpy 1 (Host-to-Device, 262144 bytes, 900000..910000, 10 us: 26 GB/s, a plausible PCIe rate), memset 1 (1024 bytes, 1 us)
--   NVTX rows 5: 3 push/pop ranges (one named by textId, one in the NCCL domain, whose ranges are
--   not projected onto the GPU), 1 mark, 1 domain create
--   => read 14, kept 10 (7 GPU activities + 3 ranges), skipped 2.
-- Process 100, thread 101: globalPid = 100 << 24 = 1677721600, globalTid = 1677721701.
-- GPU windows of the ranges (through RUNTIME correlationId):
--   decode_step_0 launched corr 101-103: 1000000..1130000 -> start_s 100e-6, 130e-6 long
--   decode_step_1 launched corr 104-106: 1200000..1271000 -> start_s 300e-6,  71e-6 long

CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES
  (1, 'nvjet_sm90_tst_256x128_64x4_2x1_v_bz_coopA_NTN'),
  (2, 'void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4>, true>(flash::Flash_fwd_params)'),
  (3, 'flash_fwd_kernel'),
  (4, 'ncclDevKernel_AllReduce_Sum_bf16_RING_LL'),
  (5, 'void per_token_group_quant_8bit_kernel<__nv_bfloat16>(const __nv_bfloat16 *, void *)'),
  (6, 'per_token_group_quant_8bit_kernel'),
  (7, 'decode_step_1');

CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (
  start INTEGER, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,
  greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER, shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER,
  cacheConfig INTEGER, registersPerThread INTEGER NOT NULL,
  gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL,
  blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
  staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
  localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL,
  sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL
  (start, end, deviceId, contextId, greenContextId, streamId, correlationId, globalPid,
   demangledName, shortName, mangledName, launchType, cacheConfig, registersPerThread,
   gridX, gridY, gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory,
   localMemoryPerThread, localMemoryTotal, gridId, sharedMemoryExecuted, graphNodeId, sharedMemoryLimitConfig)
VALUES
  (1000000, 1050000, 0, 1, NULL, 7, 101, 1677721600, 1, 1, NULL, 0, 0, 168, 132, 1, 1, 384, 1, 1, 0, 207000, 0, 0, 1, 233472, NULL, 1),
  (1060000, 1080000, 0, 1, NULL, 7, 102, 1677721600, 2, 3, NULL, 0, 0, 255,  64, 8, 1, 128, 1, 1, 16384, 0, 0, 0, 2, 65536, NULL, 1),
  (1100000, 1130000, 0, 1, NULL, 7, 103, 1677721600, NULL, 4, NULL, 0, 0, 96, 32, 1, 1, 512, 1, 1, 0, 0, 0, 0, 3, 0, NULL, 1),
  (1200000, 1250000, 0, 1, NULL, 7, 104, 1677721600, 1, 1, NULL, 0, 0, 168, 132, 1, 1, 384, 1, 1, 0, 207000, 0, 0, 4, 233472, NULL, 1),
  (1260000, 1265000, 0, 1, NULL, 7, 105, 1677721600, 5, 6, NULL, 0, 0, 32, 16, 1, 1, 256, 1, 1, 0, 0, 0, 0, 5, 0, NULL, 1),
  (1300000, 1299000, 0, 1, NULL, 7, 107, 1677721600, 1, 1, NULL, 0, 0, 168, 132, 1, 1, 384, 1, 1, 0, 207000, 0, 0, 6, 233472, NULL, 1),
  (NULL,    1310000, 0, 1, NULL, 7, 108, 1677721600, 1, 1, NULL, 0, 0, 168, 132, 1, 1, 384, 1, 1, 0, 207000, 0, 0, 7, 233472, NULL, 1);

CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (
  start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,
  greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER,
  dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER,
  migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES
  (900000, 910000, 0, 1, NULL, 7, 100, 1677721600, 262144, 1, NULL, 1, 3, NULL, NULL, NULL, NULL, NULL, NULL, NULL);

CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (
  start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,
  greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES
  (1270000, 1271000, 0, 1, NULL, 7, 106, 1677721600, 0, 1024, NULL, NULL);

CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (
  start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER,
  correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES
  ( 890000,  895000, 0, 1677721701, 100, 1, 0, NULL),
  ( 960000,  965000, 0, 1677721701, 101, 1, 0, NULL),
  (1000000, 1005000, 0, 1677721701, 102, 1, 0, NULL),
  (1050000, 1055000, 0, 1677721701, 103, 1, 0, NULL),
  (1160000, 1165000, 0, 1677721701, 104, 1, 0, NULL),
  (1170000, 1175000, 0, 1677721701, 105, 1, 0, NULL),
  (1180000, 1185000, 0, 1677721701, 106, 1, 0, NULL);

CREATE TABLE NVTX_EVENTS (
  start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER, category INTEGER,
  color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER,
  uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER,
  floatValue REAL, jsonTextId INTEGER, jsonText TEXT);
INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId, domainId) VALUES
  ( 800000, NULL,    75, 'NCCL',          1677721701, NULL, 1),
  ( 950000, 1140000, 59, 'decode_step_0', 1677721701, NULL, 0),
  (1049000, 1056000, 59, 'ncclAllReduce', 1677721701, NULL, 1),
  (1145000, NULL,    34, 'checkpoint',    1677721701, NULL, 0),
  (1150000, 1280000, 59, NULL,            1677721701, 7,    0);

-- TARGET_INFO_GPU: FORMATS.md lists name, busLocation, totalMemory, smCount, chipName,
-- memoryBandwidth; computeMajor/computeMinor are named as in other projects' fixtures (unverified).
CREATE TABLE TARGET_INFO_GPU (
  id INTEGER NOT NULL, name TEXT, busLocation TEXT, totalMemory INTEGER, memoryBandwidth INTEGER,
  smCount INTEGER, chipName TEXT, computeMajor INTEGER, computeMinor INTEGER);
INSERT INTO TARGET_INFO_GPU VALUES
  (0, 'NVIDIA H200', '0000:19:00.0', 150754820096, NULL, 132, 'GH100', 9, 0);

CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1780000000000000000, NULL, NULL);

CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', 'hand-made fixture, not a recorded export');
