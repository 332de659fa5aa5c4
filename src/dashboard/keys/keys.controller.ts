import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiKey } from '../../accounts/api-key.entity';
import { ApiKeysService } from '../../accounts/api-keys.service';
import { CreateKeyDto } from '../../accounts/dto/create-key.dto';
import { KEY_ROLL_GRACE_NAMES, keyRollGraceMs } from '../../accounts/key-roll-grace';
import { SCOPES } from '../../auth/principal';
import { ForbiddenError, NotFoundError } from '../../common/errors/domain-error';
import { validateDto } from '../../common/http/validation.pipe';
import { DashboardSessionsService } from '../dashboard-sessions.service';
import { UsersStore } from '../users.store';
import { Dashboard, type DashboardContext, type DashboardRequest } from '../web/dashboard-context';
import { DashboardRole } from '../web/dashboard-metadata';
import { DashboardController } from '../web/dashboard-page.decorator';
import { Form, type FormFields, FormState } from '../web/form';
import { FormOnce } from '../web/form-once';
import { userOrigin } from '../web/origin';
import { DashboardViews } from '../web/views';

const KEYS = '/dashboard/keys';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The grace choices as the roll form offers them. */
const GRACES: { value: string; label: string }[] = [
  { value: '0', label: 'Now' },
  { value: '1h', label: 'In 1 hour' },
  { value: '24h', label: 'In 24 hours' },
  { value: '7d', label: 'In 7 days' },
];

export type KeyStatus = 'active' | 'expiring' | 'expired' | 'revoked';

export function keyStatus(key: ApiKey, now = Date.now()): KeyStatus {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt) return key.expiresAt.getTime() <= now ? 'expired' : 'expiring';
  return 'active';
}

/** A key row as the table shows it. */
interface KeyRow {
  id: string;
  name: string;
  kind: string;
  prefix: string;
  scopes: string[];
  createdBy: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  status: KeyStatus;
}

/**
 * Keys: the current mode's keys (test keys in test mode, live keys in live mode); create, roll
 * and revoke them. A new key is shown once, in the answer to the POST that made it (no redirect,
 * no-store); a one-time form token keeps a resubmit from making a second one. Live keys are
 * managed by owners who entered their password in the last 10 minutes; developers manage test
 * keys only. No keys before the account is approved.
 */
@DashboardController()
@Controller('dashboard/keys')
export class KeysController {
  constructor(
    private readonly views: DashboardViews,
    private readonly keys: ApiKeysService,
    private readonly users: UsersStore,
    private readonly sessions: DashboardSessionsService,
    private readonly once: FormOnce,
  ) {}

  @Get()
  async page(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
  ): Promise<void> {
    await this.render(req, res, ctx, FormState.empty({ name: '' }));
  }

  @Post()
  @DashboardRole('owner', 'developer')
  async create(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @Form() form: FormFields,
  ): Promise<void> {
    this.mayManage(ctx, KEYS);
    const scopes = listOf((req.body as Record<string, unknown>)?.scopes);
    const values = { name: form.name ?? '', scopes: scopes.join(' ') };
    let input: CreateKeyDto;
    try {
      input = await validateDto(CreateKeyDto, {
        kind: ctx.livemode ? 'live' : 'test',
        name: values.name,
        scopes,
      });
    } catch (error) {
      return this.render(req, res, ctx, FormState.refused(error, values));
    }
    if (!(await this.once.consume(ctx, form.formToken))) return this.alreadyUsed(req, res, ctx);
    const { record, key } = await this.keys.create(
      ctx.account.id,
      { ...input, createdByUserId: ctx.user.id },
      userOrigin(req, ctx),
    );
    this.shown(req, res, record, key, 'created');
  }

  /** A new key like this one, shown once; this one stops working after the chosen grace. */
  @Post(':id/roll')
  @DashboardRole('owner', 'developer')
  async roll(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @Param('id') id: string,
    @Form() form: FormFields,
  ): Promise<void> {
    const key = await this.find(ctx, id);
    this.mayManage(ctx, KEYS);
    try {
      const graceMs = keyRollGraceMs(form.grace ?? '', 'grace');
      const { record, key: secret } = await this.keys.roll(
        ctx.account.id,
        key.id,
        graceMs,
        userOrigin(req, ctx),
        ctx.user.id,
      );
      this.shown(req, res, record, secret, 'rolled', form.grace);
    } catch (error) {
      const refused = FormState.refused(error, { grace: form.grace ?? '' });
      // Shown above the list and beside this key's roll control, whichever rule refused it.
      const field = `grace-${key.id}`;
      const roll = new FormState(
        { [field]: form.grace ?? '' },
        refused.errors.map((e) => ({ ...e, field })),
      );
      await this.render(req, res, ctx, FormState.empty(), false, roll);
    }
  }

  /** The confirmation page of a revocation. */
  @Get(':id/revoke')
  async confirmRevoke(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @Param('id') id: string,
  ): Promise<void> {
    const key = await this.find(ctx, id);
    this.views.send(res, req, 'keys/revoke', {
      title: `Revoke ${key.name}`,
      nav: 'keys',
      key: await this.rowOf(key),
      canManage: this.canManage(ctx),
    });
  }

  @Post(':id/revoke')
  @DashboardRole('owner', 'developer')
  async revoke(
    @Req() req: DashboardRequest,
    @Dashboard() ctx: DashboardContext,
    @Res() res: Response,
    @Param('id') id: string,
  ): Promise<void> {
    const key = await this.find(ctx, id);
    this.mayManage(ctx, `${KEYS}/${key.id}/revoke`);
    if (!key.revokedAt) await this.keys.revoke(key.id, userOrigin(req, ctx), ctx.account.id);
    this.views.redirect(res, `${KEYS}?notice=key-revoked`);
  }

  /** This mode's key of this account, else 404 (another account's or mode's key included). */
  private async find(ctx: DashboardContext, id: string): Promise<ApiKey> {
    const kind = ctx.livemode ? 'live' : 'test';
    const key = UUID.test(id)
      ? (await this.keys.list(ctx.account.id)).find((k) => k.id === id && k.kind === kind)
      : undefined;
    if (!key) throw new NotFoundError('API key');
    return key;
  }

  private canManage(ctx: DashboardContext): boolean {
    return ctx.livemode ? ctx.role === 'owner' : ctx.role === 'owner' || ctx.role === 'developer';
  }

  /** Live keys: owners only, with the password entered in the last 10 minutes. */
  private mayManage(ctx: DashboardContext, back: string): void {
    if (!this.canManage(ctx))
      throw new ForbiddenError('Only an owner of the account manages live keys.');
    if (ctx.livemode) this.sessions.requireRecentPassword(ctx, back);
  }

  private shown(
    req: DashboardRequest,
    res: Response,
    record: ApiKey,
    key: string,
    how: 'created' | 'rolled',
    grace?: string,
  ): void {
    res.setHeader('Cache-Control', 'no-store');
    this.views.send(res, req, 'keys/created', {
      title: how === 'created' ? 'Your new key' : 'Your rolled key',
      nav: 'keys',
      how,
      grace: GRACES.find((g) => g.value === (grace === 'now' ? '0' : grace))?.label,
      record,
      key,
    });
  }

  private alreadyUsed(req: DashboardRequest, res: Response, ctx: DashboardContext): Promise<void> {
    return this.render(req, res, ctx, FormState.empty({ name: '' }), true);
  }

  private async render(
    req: DashboardRequest,
    res: Response,
    ctx: DashboardContext,
    form: FormState,
    alreadyUsed = false,
    roll = FormState.empty(),
  ): Promise<void> {
    const approved = ctx.account.status === 'APPROVED';
    const kind = ctx.livemode ? 'live' : 'test';
    const keys = approved
      ? (await this.keys.list(ctx.account.id)).filter((k) => k.kind === kind)
      : [];
    const rows = await Promise.all(keys.map((k) => this.rowOf(k)));
    const canManage = approved && this.canManage(ctx);
    this.views.send(res, req, 'keys/keys', {
      title: 'API keys',
      nav: 'keys',
      approved,
      kind,
      rows,
      canManage,
      formToken: canManage ? await this.once.issue(ctx) : '',
      scopes: SCOPES,
      graces: GRACES,
      graceNames: KEY_ROLL_GRACE_NAMES,
      chosenScopes: form.hasErrors ? form.value('scopes').split(' ').filter(Boolean) : [...SCOPES],
      alreadyUsed,
      form,
      roll,
    });
  }

  private async rowOf(key: ApiKey): Promise<KeyRow> {
    const creator = key.createdByUserId ? await this.users.byId(key.createdByUserId) : null;
    return {
      id: key.id,
      name: key.name,
      kind: key.kind,
      prefix: key.prefix,
      scopes: key.scopes,
      createdBy: creator ? creator.email : key.createdByUserId ? 'a former member' : 'staff',
      createdAt: key.createdAt,
      lastUsedAt: key.lastUsedAt,
      expiresAt: key.expiresAt,
      status: keyStatus(key),
    };
  }
}

/** A repeated form field (checkboxes) as a list of strings. */
function listOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}
