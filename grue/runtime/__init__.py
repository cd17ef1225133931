"""Processes and engines: device, threads and seeding; the accelerate engine; torchrun relaunch;
the collectives of a multi-process run; FSDP parameter sharding; the accelerate launch presets."""
