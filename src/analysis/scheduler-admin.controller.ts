import { Controller, Get, HttpCode, HttpStatus, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../admin/admin-key.guard';
import { AnalysisSchedulerService } from './analysis-scheduler.service';
import { SchedulerStatusResponse } from './dto/analysis.dto';

@ApiTags('admin')
@AdminOnly()
@Controller('api/v1/admin/scheduler')
export class SchedulerAdminController {
  constructor(private readonly scheduler: AnalysisSchedulerService) {}

  @Get('status')
  @ApiOperation({ summary: 'The analysis scheduler of this instance' })
  @ApiOkResponse({ type: SchedulerStatusResponse })
  status(): Promise<SchedulerStatusResponse> {
    return this.scheduler.status();
  }

  @Post('pause')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Pause: running analyses finish, nothing new is claimed' })
  @ApiOkResponse({ type: SchedulerStatusResponse })
  pause(): Promise<SchedulerStatusResponse> {
    this.scheduler.pause();
    return this.scheduler.status();
  }

  @Post('resume')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Resume claiming analyses' })
  @ApiOkResponse({ type: SchedulerStatusResponse })
  resume(): Promise<SchedulerStatusResponse> {
    this.scheduler.resume();
    return this.scheduler.status();
  }
}
