// The legacy (snake_case, _id) shape of a user.
export type GraphqlUser = { id: string; username: string; firstName: string; avatar?: string | null; role?: string; createdAt?: string };

export const legacyUser = (u: GraphqlUser) => ({
  _id: u.id,
  username: u.username,
  first_name: u.firstName,
  avatar: u.avatar ?? null,
  ...(u.role ? { role: u.role.toLowerCase() } : {}),
  ...(u.createdAt ? { created_at: u.createdAt } : {}),
});
