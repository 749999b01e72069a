import { Inject, Injectable } from '@nestjs/common';
import { DataSource, FindOptionsWhere } from 'typeorm';
import type { Role } from '@baton/domain';
import { inTransaction, isUniqueViolation, SessionEntity, TenantEntity, UserEntity } from '@baton/persistence';
import { badRequest, conflict, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';

import { AuthService } from '../auth/auth.service';
import { UserView } from './dto/operator.dto';

export function userView(row: UserEntity): UserView {
  return { id: row.id, username: row.username, role: row.role, tenantId: row.tenantId, createdAt: row.createdAt };
}

export interface NewUser {
  username: string;
  password: string;
  role: Role;
  tenantId?: string | null;
}

@Injectable()
export class UsersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly auth: AuthService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async list(tenantId?: string): Promise<UserView[]> {
    const where: FindOptionsWhere<UserEntity> = tenantId === undefined ? {} : { tenantId };
    const rows = await this.dataSource.getRepository(UserEntity).find({ where, order: { id: 'ASC' } });
    return rows.map(userView);
  }

  async create(input: NewUser): Promise<UserView> {
    const tenantId = input.tenantId ?? null;
    if (input.role === 'OPERATOR' && tenantId !== null) {
      throw badRequest([{ field: 'tenantId', reason: 'an OPERATOR has no tenant' }]);
    }
    if (input.role !== 'OPERATOR') {
      if (tenantId === null) throw badRequest([{ field: 'tenantId', reason: `is required for role ${input.role}` }]);
      if (!(await this.dataSource.getRepository(TenantEntity).existsBy({ id: tenantId }))) {
        throw badRequest([{ field: 'tenantId', reason: `no tenant "${tenantId}"` }]);
      }
    }
    const duplicate = () => conflict(`User "${input.username}" already exists`, [{ field: 'username', reason: 'already exists' }]);
    const row = this.dataSource.getRepository(UserEntity).create({
      username: input.username,
      passwordHash: await this.auth.hashPassword(input.password),
      role: input.role,
      tenantId,
      createdAt: this.clock.now(),
    });
    try {
      await inTransaction(this.dataSource, async (em) => {
        if (await em.existsBy(UserEntity, { username: input.username })) throw duplicate();
        await em.insert(UserEntity, row);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicate();
      throw error;
    }
    return userView(row);
  }

  /** Creates the user unless one of that username exists (seeding, bootstrap). True when created. */
  async ensure(input: NewUser): Promise<boolean> {
    if (await this.dataSource.getRepository(UserEntity).existsBy({ username: input.username })) return false;
    await this.create(input);
    return true;
  }

  /** Deletes a user and its sessions. Operators cannot delete themselves (no lock-out by mistake). */
  async delete(id: number, actingUserId: number | null): Promise<void> {
    if (id === actingUserId) throw conflict('You cannot delete yourself', [{ field: 'id', reason: 'is the calling user' }]);
    await inTransaction(this.dataSource, async (em) => {
      if (!(await em.existsBy(UserEntity, { id }))) throw notFound('User', id);
      await em.delete(SessionEntity, { userId: id });
      await em.delete(UserEntity, { id });
    });
  }
}
