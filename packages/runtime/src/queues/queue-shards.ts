import calculateSlot from "cluster-key-slot";

/** Redis Cluster's hash slots: a key's slot is CRC16 of its hash tag, mod this. */
const SLOTS = 16_384;

/** The hash tag of the queues when they are not sharded (`queues.shards` 1): what every deployment before sharding used. */
const UNSHARDED_TAG = "queues";

/**
 * The hash tag of queue shard `shard` of `shards`. One shard keeps
 * `{queues}`. With several, shard k's tag is the first `queues-k`,
 * `queues-k-1`, … whose slot lies in the k-th of `shards` equal ranges of
 * the slot space: a cluster whose masters own equal ranges (what
 * `redis-cli --cluster create` makes) then serves the same number of shards
 * on each master when their count divides `shards`, where tags hashed at
 * random would pile several shards on one master.
 */
export function queueShardTag(shard: number, shards: number): string {
  if (shards === 1) return UNSHARDED_TAG;
  const from = Math.floor((shard * SLOTS) / shards);
  const to = Math.floor(((shard + 1) * SLOTS) / shards);
  for (let salt = 0; ; salt += 1) {
    const tag = salt === 0 ? `${UNSHARDED_TAG}-${shard}` : `${UNSHARDED_TAG}-${shard}-${salt}`;
    const slot = calculateSlot(tag);
    if (slot >= from && slot < to) return tag;
  }
}

/** The shard of `shards` that holds every queue job and control event of run `runId`. */
export function queueShardOf(runId: string, shards: number): number {
  return shards === 1 ? 0 : calculateSlot(runId) % shards;
}
