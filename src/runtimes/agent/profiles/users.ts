/** Reading a user's profile and forgetting a user (profile and long-term memories). */
import { invalidInput } from '../../../core/index.ts';
import { forgetScope } from '../../../memory/index.ts';
import type { Store } from '../../../store/store.ts';
import { profileView } from '../state/user-profile.ts';
import { deleteProfile, loadProfile } from './profile-store.ts';

const USER_ID = /^[A-Za-z0-9_.@:-]{1,128}$/;

function checkUserId(user_id: string): void {
  if (typeof user_id !== 'string' || !USER_ID.test(user_id))
    throw invalidInput('user_id is invalid', { user_id }, 'letters, digits and _ . @ : - (1–128)');
}

export async function getUserProfile(store: Store, user_id: string): Promise<Record<string, unknown>> {
  checkUserId(user_id);
  const { profile, revision } = await loadProfile(store, user_id);
  return { ...profileView(profile), revision, stored: revision > 0 };
}

/** Deletes the profile and every long-term memory of the user, in one transaction. */
export async function forgetUser(
  store: Store,
  user_id: string,
): Promise<{ user_id: string; profile_deleted: boolean; memories_deleted: number }> {
  checkUserId(user_id);
  return store.transaction(async (tx) => {
    const profile_deleted = await deleteProfile(tx, user_id);
    const { deleted } = await forgetScope(tx, { scope_kind: 'user', scope_id: user_id });
    return { user_id, profile_deleted, memories_deleted: deleted };
  });
}
