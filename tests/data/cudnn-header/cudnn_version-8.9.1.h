/**
 * \file: The master cuDNN version file.
 */

#ifndef CUDNN_VERSION_H_
#define CUDNN_VERSION_H_

#define CUDNN_MAJOR 8
#define CUDNN_MINOR 9
#define CUDNN_PATCHLEVEL 1

#define CUDNN_VERSION (CUDNN_MAJOR * 1000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)

/* cannot use constexpr here since this is a C-only file */
/* Below is the max SM version this cuDNN library is aware of and supports natively */

#define CUDNN_MAX_SM_MAJOR_NUMBER 9
#define CUDNN_MAX_SM_MINOR_NUMBER 0
#define CUDNN_MAX_DEVICE_VERSION (CUDNN_MAX_SM_MAJOR_NUMBER * 100 + CUDNN_MAX_SM_MINOR_NUMBER * 10)

/* Here are constants for each of the SM Architectures we support to use in code where device version checks must be
 * made */

/* MAXWELL SM 50 52 53 */
#define CUDNN_SM_50 500
#define CUDNN_SM_52 520
#define CUDNN_SM_53 530

/* PASCAL SM 60 61 62 */
#define CUDNN_SM_60 600
#define CUDNN_SM_61 610
#define CUDNN_SM_62 620

/* VOLTA SM 70 72 */
#define CUDNN_SM_70 700
#define CUDNN_SM_72 720

/* TURING SM 75 */
#define CUDNN_SM_75 750

/* AMPERE SM 80 86 87 */
#define CUDNN_SM_80 800
#define CUDNN_SM_86 860
#define CUDNN_SM_87 870

/* ADA LOVELACE SM 89 */
#define CUDNN_SM_89 890

/* HOPPER SM 90 */
#define CUDNN_SM_90 900

/* END MARKER for last known version.
 * This can be replaced after support for 1000 is added
 */
#define CUDNN_SM_9X_END 999

/* This is the minimum version we support devices below this will return CUDNN_STATUS_ARCH_MISMATCH */
#define CUDNN_MIN_DEVICE_VERSION CUDNN_SM_50

#endif /* CUDNN_VERSION_H */
