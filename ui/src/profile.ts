import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getProfile, setStarred, type ObjectRef, type Profile } from './profile-api';

const KEY = ['profile'];

/** The caller's profile (recently viewed, starred, preferences). */
export function useProfile() {
  return useQuery(KEY, getProfile, { staleTime: 30_000 });
}

const same = (a: ObjectRef, b: ObjectRef) => a.kind === b.kind && (a.project ?? '') === (b.project ?? '') && a.name === b.name;

/** Whether `ref` is starred, and a toggle that updates the cached profile with the server's answer. */
export function useStar(ref: ObjectRef | undefined) {
  const queryClient = useQueryClient();
  const profile = useProfile();
  const starred = !!ref && !!profile.data?.starred.some((r) => same(r, ref));
  const mutation = useMutation((on: boolean) => setStarred(ref!, on), {
    onSuccess: (next: Profile) => queryClient.setQueryData(KEY, next),
  });
  return {
    starred,
    ready: !!ref && profile.isSuccess,
    toggle: () => mutation.mutate(!starred),
    busy: mutation.isLoading,
    error: mutation.error,
  };
}
