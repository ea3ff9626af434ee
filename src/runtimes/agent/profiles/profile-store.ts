/**
 * Persisted UserProfiles (`user_profiles`, seed 002), one row per user, written with an optimistic
 * `revision` so two background updates of one user never silently overwrite each other.
 */
import { NoemaError } from '../../../core/errors.ts';
import type { Queryable } from '../../../store/store.ts';
import { newUserProfile, type UserProfile } from '../state/user-profile.ts';

export interface StoredProfile {
  profile: UserProfile;
  /** 0 when the user has no stored profile yet. */
  revision: number;
}

export async function loadProfile(q: Queryable, user_id: string): Promise<StoredProfile> {
  const row = await q.get<{ profile: string; revision: number }>(
    'SELECT profile, revision FROM user_profiles WHERE user_id = ?',
    [user_id],
  );
  if (!row) return { profile: newUserProfile(user_id), revision: 0 };
  return { profile: JSON.parse(row.profile) as UserProfile, revision: Number(row.revision) };
}

/** Writes the profile if its revision is still `expected` (0: not yet stored); else PROFILE_CONFLICT. */
export async function saveProfile(
  q: Queryable,
  profile: UserProfile,
  expected: number,
): Promise<{ revision: number }> {
  const now = Date.now();
  const text = JSON.stringify(profile);
  const r =
    expected === 0
      ? await q.run(
          `INSERT INTO user_profiles (user_id, profile, interaction_count, synthesis_version, revision, updated_at)
           VALUES (?, ?, ?, ?, 1, ?) ON CONFLICT (user_id) DO NOTHING`,
          [profile.user_id, text, profile.interaction_count, profile.synthesis_version, now],
        )
      : await q.run(
          `UPDATE user_profiles SET profile = ?, interaction_count = ?, synthesis_version = ?, revision = revision + 1, updated_at = ?
           WHERE user_id = ? AND revision = ?`,
          [text, profile.interaction_count, profile.synthesis_version, now, profile.user_id, expected],
        );
  if (r.changes !== 1)
    throw new NoemaError(
      'PROFILE_CONFLICT',
      `the profile of ${profile.user_id} changed since revision ${expected}`,
      {
        status: 409,
        retryable: true,
        details: { user_id: profile.user_id, expected_revision: expected },
      },
    );
  return { revision: expected + 1 };
}

export async function deleteProfile(q: Queryable, user_id: string): Promise<boolean> {
  return (await q.run('DELETE FROM user_profiles WHERE user_id = ?', [user_id])).changes > 0;
}
