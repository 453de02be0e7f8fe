import { Type, type Static } from 'typebox';
import { Id, StringEnum, Timestamp } from '../../core/schemas.ts';
import { AUDIT_ACTIONS } from './audit.repo.ts';

const UserRef = Type.Union([Type.Object({ username: Type.String() }), Type.Null()]);
const Pagination = Type.Object(
  { total: Type.Integer(), page: Type.Integer(), perPage: Type.Integer(), totalPages: Type.Integer() },
  { description: 'Pages as the tag lists page them: `page` from 1, `limit` per page' },
);
const PAGE = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
};

export const REPORT_STATES = ['open', 'resolved', 'dismissed'] as const;
export const REASON_MAX = 1000;

export const NewReport = Type.Object(
  {
    postId: Type.Optional(Type.String({ maxLength: 32, description: 'The post reported; give this or commentId, not both' })),
    commentId: Type.Optional(Type.String({ maxLength: 32, description: 'The comment reported; give this or postId, not both' })),
    reason: Type.String({
      minLength: 1,
      maxLength: REASON_MAX,
      description: `What is wrong: 1-${REASON_MAX} characters, surrounding whitespace trimmed (whitespace alone is refused)`,
    }),
  },
  { additionalProperties: false },
);
export type NewReport = Static<typeof NewReport>;

export const Report = Type.Object({
  id: Id,
  postId: Type.Union([Id, Type.Null()], { description: 'The post reported (null for a report of a comment)' }),
  commentId: Type.Union([Id, Type.Null()], { description: 'The comment reported (null for a report of a post)' }),
  reason: Type.String(),
  state: StringEnum(REPORT_STATES),
  note: Type.Union([Type.String(), Type.Null()], { description: "The moderator's note when settling it" }),
  reporter: UserRef,
  createdAt: Timestamp,
  settledBy: Type.Union([Type.Object({ username: Type.String() }), Type.Null()], { description: 'Who resolved or dismissed it; null while open' }),
  settledAt: Type.Union([Timestamp, Type.Null()]),
});
export const ReportEnvelope = Type.Object({ report: Report });

export const ReportListQuery = Type.Object(
  { state: Type.Optional(StringEnum(REPORT_STATES, { default: 'open', description: 'Reports in this state (default open)' })), ...PAGE },
  { additionalProperties: false },
);
export type ReportListQuery = Static<typeof ReportListQuery>;
export const ReportList = Type.Object({ reports: Type.Array(Report, { description: 'Newest first' }), pagination: Pagination });

export const ReportIdParams = Type.Object({ id: Type.String({ maxLength: 32 }) });
export const SettleReport = Type.Object(
  {
    state: StringEnum(['resolved', 'dismissed'] as const, { description: 'resolved: acted on; dismissed: nothing wrong' }),
    note: Type.Optional(Type.String({ maxLength: REASON_MAX, description: `Why, for the other moderators (at most ${REASON_MAX} characters)` })),
  },
  { additionalProperties: false },
);
export type SettleReport = Static<typeof SettleReport>;

export const BanBody = Type.Object(
  {
    reason: Type.String({ minLength: 1, maxLength: 500, description: 'Shown to the banned user in every refused write: 1-500 characters' }),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'When the ban ends (ISO 8601, in the future); left out: permanent' })),
  },
  { additionalProperties: false },
);
export type BanBody = Static<typeof BanBody>;

export const Ban = Type.Object({
  username: Type.String(),
  reason: Type.String(),
  until: Type.Union([Timestamp, Type.Null()], { description: 'null: permanent' }),
  bannedBy: UserRef,
  createdAt: Timestamp,
});
export const BanEnvelope = Type.Object({ ban: Ban });

export const AuditQuery = Type.Object(
  {
    actor: Type.Optional(Type.String({ maxLength: 64, description: 'Only the actions of this user (any case)' })),
    action: Type.Optional(StringEnum(AUDIT_ACTIONS, { description: 'Only this action' })),
    target: Type.Optional(
      Type.String({
        maxLength: 300,
        description:
          'Only this target, exactly as entries show it: `user:<lowercase name>`, `post:<id>`, `comment:<id>`, `report:<id>`, `job:<id>` (a bulk tag edit), `pool:<id>`, `tag:<name>`, `tag_alias:<from>`, `tag_implication:<from>-><to>`',
      }),
    ),
    ...PAGE,
  },
  { additionalProperties: false },
);
export type AuditQuery = Static<typeof AuditQuery>;

export const AuditEntry = Type.Object({
  id: Id,
  actor: Type.Union([Type.Object({ username: Type.String() }), Type.Null()], { description: 'null: the command line (no account)' }),
  action: StringEnum(AUDIT_ACTIONS),
  target: Type.String(),
  details: Type.Record(Type.String(), Type.Unknown(), { description: 'What the action changed (a JSON object; its fields depend on the action)' }),
  createdAt: Timestamp,
});
export const AuditList = Type.Object({ entries: Type.Array(AuditEntry, { description: 'Newest first' }), pagination: Pagination });
