"""Limits the catalog enforces (validators, check constraints, upload sizes)."""

KEY_MAX_LENGTH = 64
NAME_MAX_LENGTH = 200
SOURCE_MAX_LENGTH = 4000  # a row citing several public documents, one full citation a line

# Accelerators
ACCELERATOR_MEMORY_GB_MAX = 2048
ACCELERATOR_TDP_W_MAX = 5000

# Servers
SERVER_GPU_COUNT_MAX = 72
SERVER_RACK_UNITS_MAX = 60
SERVER_POWER_W_MAX = 200_000
INLET_TEMP_C_MIN = -10
INLET_TEMP_C_MAX = 60

# Percentages (humidity, efficiency, packet loss)
PERCENT_MIN = 0
PERCENT_MAX = 100

# Sites
PUE_MIN = 1.0
PUE_MAX = 3.0
RACK_KW_MAX = 300
POWER_FEEDS_MAX = 8

# Model presets
MODEL_PARAMS_B_MAX = 10_000

# PCIe 5.0 x16 is 128 GB/s bidirectional; a PCIe-only part cannot exceed it.
PCIE_MAX_GBS = 128
